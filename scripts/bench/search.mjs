// `npm run bench:search`: memoryd's search at 10,000, 100,000 and 1,000,000
// facts (issue 4): load time, store size, daemon RSS, cold start to the
// first answered search, and search latency through the socket, next to
// @modelcontextprotocol/server-memory's search_nodes on the same texts and
// queries; then issue 4's targets. Progress goes to stderr; the report (or,
// with --json, one JSON document) to stdout.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BUSY_POLL_US as DEFAULT_CLIENT_BUSY_POLL_US } from '@memoryd/client';
import { assertDaemonBuilt, cleanupSync, makeTempDir } from './children.mjs';
import { SCALES, SEARCHED_AGENT } from './search/dataset.mjs';
import { formatReport, judge } from './search/report.mjs';
import { buildFingerprint } from './search/memoryd.mjs';
import { postgresMissing, runPostgres } from './search/postgres.mjs';
import { runMemoryd } from './search/run-scale.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCALE_NAMES = Object.keys(SCALES);

const HELP = `usage: node scripts/bench/search.mjs [--scales LIST] [--queries N] [--warmup N] [--limit N]
       [--seed N] [--in-flight N] [--cold-starts N] [--server-memory-100k] [--no-server-memory]
       [--load-budget S] [--search-budget S] [--blocks N] [--client-busy-poll-us N] [--keep] [--json] [--check]

Benchmarks memory.search at five scales, each on its own fresh data dir:

  10k        10,000 facts of one agent
  100k       100,000 facts of one agent
  1m         1,000,000 facts: 100 agents x 9,000 plus the searched agent's 100,000
  zipf-100k  100,000 facts of one agent, Zipf corpus
  zipf-1m    1,000,000 facts of one agent, Zipf corpus

The Zipf corpus (issue 15) is 8-20 words a fact from a vocabulary of 5,000
pseudo-words with plain Zipf frequencies (s = 1): the most common word is
in ~79% of facts, the next in ~50%, the queries' common words expensive.
The other facts come from a seeded generator (sentences of 8-25 words: stop words,
common words and a Zipf-distributed vocabulary of 40,000 pseudo-words, with
identifiers, versions, paths, emails and, on ~30%, 1-3 tags), with ULIDs and
createdAt spread over a year. They are loaded through the socket with
admin.import, 1,000 records per call. Queries are 1-3 consecutive non-stop
words of a random fact of the searched agent (${SEARCHED_AGENT}); ~20% cut their
last word short and end it with * to exercise prefix matching. Every search
is timed from the first one after the load, and again from the first one
after a restart: nothing is excluded as a warm-up unless --warmup asks.

Prints per scale: load time and facts/s; the store's size on disk (the
files of <data-dir>/store, once the last daemon on it has stopped); the
daemon's RSS after the load, after the searches and after a cold start; the
cold start (spawn on the same data dir, socket probed every 2 ms) to the
first accepted connection and to the first answered search (median of
--cold-starts runs, the page cache left as it is); and search
mean/p50/p99/max with one request in flight, sent through @memoryd/client's
DaemonClient as memoryd-mcp sends them, from a process of its own (as
memoryd-mcp is: not this one, which holds the whole dataset it loaded),
overall and by kind of query,
beside as many daemon.hello round trips timed right after on the same
connection (the floor: the socket, both event loops and this machine's
scheduling, with no search in it); and the first 300 searches through a
daemon restarted and left idle 5 s first (a service before its agent
searches, when its warm-up runs). Then
@modelcontextprotocol/server-memory (spawned with the MCP SDK's Client and
StdioClientTransport) loads the same 10,000 texts (one entity per fact)
while that scale's first daemon still runs, and the same queries are timed
on both in --blocks alternating blocks (memoryd's memory.search, then
server-memory's search_nodes), so that the machine's slow and fast minutes
fall on both alike; both sides' p50/p99 there, the ratios, and the range
of the per-block ratios. Last, the targets of issues 4 and 15 with PASS/FAIL (n/a when not measured).

  --scales LIST          comma-separated subset of ${SCALE_NAMES.join(',')} (default: all)
  --queries N            timed queries per scale, 10-100000 (default 2000)
  --warmup N             untimed queries before the timed ones, 0-10000 (default 0: a
                         user's first searches after a start count; the comparison with
                         server-memory re-warms each block from 300 queries of its own)
  --limit N              memory.search limit, 1-100 (default 10)
  --seed N               corpus and query seed, a 32-bit integer (default 1)
  --in-flight N          admin.import calls in flight during the load, 1-64 (default 4)
  --cold-starts N        cold starts per scale, each with its own probe query; the
                         median is reported and judged, 1-20 (default 3)
  --server-memory-100k   also run server-memory on the 100k scale's texts (slow)
  --no-server-memory     skip server-memory (its target is then n/a)
  --postgres             also run the 10k and 100k scales (those of --scales) on a
                         daemon with --store postgres, on the server the PG*
                         variables name, in a schema of its own dropped after
                         (ADR 0027): load, then search p50/p99 through the socket
  --load-budget S        server-memory's load is skipped past S seconds (default 300)
  --search-budget S      the comparison stops after the block in which server-memory's
                         searches pass S seconds (default 300)
  --blocks N             alternating blocks of the comparison with server-memory, 1-100
                         (default 20; memoryd re-warms with 300 untimed queries, server-memory
                         with 1, at the start of each of its blocks)
  --client-busy-poll-us N  the searching DaemonClient's busyPollUs, 0-1000000 (default:
                         the client's own, 500; 0 sleeps while each answer is awaited)
  --keep                 keep the data dirs and print where they are
  --json                 print the results as one JSON document instead of the report
  --check                exit 1 when a target fails or is n/a (default: exit 0 once measured)
  --help                 this text

Needs a built daemon (npm run bench:search builds first). Runs under
${os.tmpdir()}; the 1m and zipf-1m scales need some minutes each and ~1 GB of disk.
Daemons, server-memory and temp dirs are stopped and removed on exit, also
on error or Ctrl-C (except with --keep). The run stops with an error if the
daemon is rebuilt while it runs (its dist files change), rather than mix
two builds' figures.`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = {
    scales: [...SCALE_NAMES], queries: 2_000, warmup: 0, limit: 10, seed: 1, inFlight: 4, coldStarts: 3,
    serverMemory: true, serverMemory100k: false, loadBudgetMs: 300_000, searchBudgetMs: 300_000,
    keep: false, json: false, check: false, help: false, clientBusyPollUs: undefined, compareBlocks: 20,
  };
  const integer = (flag, raw, min, max) => {
    const value = Number(raw);
    if (raw === undefined || !Number.isInteger(value) || value < min || value > max) throw usage(`${flag} needs an integer from ${min} to ${max}`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--check') opts.check = true;
    else if (arg === '--keep') opts.keep = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--server-memory-100k') opts.serverMemory100k = true;
    else if (arg === '--no-server-memory') opts.serverMemory = false;
    else if (arg === '--postgres') opts.postgres = true;
    else if (arg === '--queries') opts.queries = integer(arg, argv[++i], 10, 100_000);
    else if (arg === '--warmup') opts.warmup = integer(arg, argv[++i], 0, 10_000);
    else if (arg === '--limit') opts.limit = integer(arg, argv[++i], 1, 100);
    else if (arg === '--seed') opts.seed = integer(arg, argv[++i], 0, 2 ** 32 - 1);
    else if (arg === '--in-flight') opts.inFlight = integer(arg, argv[++i], 1, 64);
    else if (arg === '--cold-starts') opts.coldStarts = integer(arg, argv[++i], 1, 20);
    else if (arg === '--load-budget') opts.loadBudgetMs = integer(arg, argv[++i], 1, 86_400) * 1000;
    else if (arg === '--search-budget') opts.searchBudgetMs = integer(arg, argv[++i], 1, 86_400) * 1000;
    else if (arg === '--blocks') opts.compareBlocks = integer(arg, argv[++i], 1, 100);
    else if (arg === '--client-busy-poll-us') opts.clientBusyPollUs = integer(arg, argv[++i], 0, 1_000_000);
    else if (arg === '--scales') {
      const list = String(argv[++i] ?? '').toLowerCase().split(',').filter((s) => s !== '');
      const unknown = list.find((s) => !SCALE_NAMES.includes(s));
      if (list.length === 0 || unknown !== undefined) {
        throw usage(`--scales takes a comma-separated subset of ${SCALE_NAMES.join(',')}${unknown ? `, not ${JSON.stringify(unknown)}` : ''}`);
      }
      opts.scales = SCALE_NAMES.filter((s) => list.includes(s));
    } else throw usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  return opts;
}

/** @param {string} message */
function usage(message) {
  return Object.assign(new Error(`${message}\n(see --help)`), { exitCode: 2 });
}

/** @param {string} message */
function progress(message) {
  process.stderr.write(`bench:search: ${message}\n`);
}

/** The checked-out commit, so a printed figure can be traced to the code that made it. */
function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  assertDaemonBuilt();
  const pgMissing = opts.postgres ? postgresMissing() : undefined;
  if (pgMissing !== undefined) throw usage(`--postgres: ${pgMissing}`);
  // --keep leaves the dirs behind on purpose, so they are not registered for removal.
  const root = opts.keep ? fs.mkdtempSync(path.join(os.tmpdir(), 'memoryd-bench-search-')) : makeTempDir('memoryd-bench-search-');
  const startedAt = new Date().toISOString();
  const build = buildFingerprint();
  const scales = [];
  const serverMemory = [];
  for (const name of opts.scales) {
    const scale = /** @type {import('./search/dataset.mjs').Scale} */ (SCALES[name]);
    const compare = opts.serverMemory && (name === '10k' || (name === '100k' && opts.serverMemory100k));
    const run = await runMemoryd(scale, { ...opts, build, compare }, root, progress);
    scales.push(run.result);
    if (run.comparison !== undefined) serverMemory.push(run.comparison);
  }
  const postgres = [];
  if (opts.postgres) {
    for (const name of opts.scales.filter((n) => n === '10k' || n === '100k')) {
      postgres.push(await runPostgres(/** @type {import('./search/dataset.mjs').Scale} */ (SCALES[name]), opts, root, progress));
    }
  }
  const targets = judge(scales, serverMemory);
  const meta = {
    startedAt, commit: commit(), build, daemonVersion: scales[0]?.daemonVersion, node: process.version,
    platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, seed: opts.seed, queries: opts.queries,
    warmup: opts.warmup, limit: opts.limit, coldStarts: opts.coldStarts, searchedAgent: SEARCHED_AGENT,
    clientBusyPollUs: opts.clientBusyPollUs ?? DEFAULT_CLIENT_BUSY_POLL_US, compareBlocks: opts.compareBlocks,
  };
  const doc = { meta, scales, serverMemory, targets, ...(opts.postgres ? { postgres } : {}) };
  process.stdout.write(`${opts.json ? JSON.stringify(doc, null, 2) : formatReport(doc)}\n`);
  if (opts.keep) progress(`kept: ${root}`);
  return opts.check && targets.some((t) => t.pass !== true) ? 1 : 0;
}

main().then(
  (code) => {
    cleanupSync();
    // Exit explicitly: a handle someone leaked must not keep the run alive.
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench:search: ${err?.exitCode === 2 ? err.message : (err?.stack ?? err)}\n`);
    cleanupSync();
    process.exit(err?.exitCode ?? 1);
  },
);
