// `npm run bench:search`: memoryd's search and import measured as ratios,
// in one run, beside the peer a user would pick instead (an SQLite FTS5
// index behind the same socket protocol) and the transport's floor (an
// echo server), and beside other memoryd builds or variants for A/B runs
// of one mechanism. Progress goes to stderr; the report (or, with --json,
// one JSON document) to stdout.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION } from '@memoryd/protocol';
import { assertDaemonBuilt, cleanupSync, makeTempDir, stopChild } from './children.mjs';
import { SCALES } from './search/dataset.mjs';
import { formatReport } from './search/report.mjs';
import { runScale } from './search/run-scale.mjs';
import { ensureBenchDeps } from './bench-deps.mjs';
import { startEmbedServer } from './search/embed-server.mjs';
import { makeServers, startSearchTimer } from './search/subjects.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCALE_NAMES = Object.keys(SCALES);
const DEFAULT_SCALES = ['zipf-100k', 'zipf-1m'];

const HELP = `usage: node scripts/bench/search.mjs [--scales LIST] [--runs N] [--queries N] [--restart-queries N]
       [--limit N] [--seed N] [--in-flight N] [--baseline DIR] [--memoryd JSON]... [--postgres]
       [--no-fts5] [--no-echo] [--embeddings] [--embed-dims N] [--filters] [--keep] [--json]

Measures memory.search and admin.import of memoryd as ratios, in one run,
beside:

  fts5   the peer a user would pick instead: an SQLite FTS5 index
         (better-sqlite3, porter unicode61, the query's words ORed, ranked
         by bm25, WAL with synchronous=FULL, one transaction an import
         call), served over memoryd's own NDJSON protocol on a Unix socket
         (scripts/bench/search/fts5-server.mjs);
  echo   the transport's floor: a server that parses each request and
         answers a fixed 10-fact search result (scripts/bench/echo-server.mjs);

and any other memoryd given (--baseline, --memoryd): another build, or
this one with other flags, variables or Node options, for A/B runs.

Per scale, every server gets a fresh data dir and is seeded with the
scale's facts through admin.import (1,000 records a call, timed); then the
same queries go to every server interleaved (query i to each in turn, the
order rotated by one per query), one request in flight, through
@memoryd/client's DaemonClient of the server's own checkout, from a
process of its own, every search timed from the first; then every server
is stopped and started again, and the first --restart-queries queries are
timed the same way, from each server's first request. Queries are 1-3
consecutive words of a random fact of the searched agent, ~20% with the
last word cut short and a *.

Prints per scale: the seeding time, facts/s and its ratio to fts5's; RSS
after seeding, after the searches and after the restart's; p50 and p99
with memoryd÷fts5 and memoryd÷echo, overall and per class of query (A-D:
the share of the agent's facts holding its most common word, >= 50%,
10-50%, 1-10%, < 1%), after seeding and after the restart; with more
than one memoryd, each one's p50 and p99 ÷ the first's (A/B); with
--runs above 1, the median of every ratio over the runs. No bar in it is
an absolute time.

Scales (default ${DEFAULT_SCALES.join(',')}):
  zipf-100k  100,000 facts of one agent, Zipf corpus (5,000 words, plain Zipf:
             the most common word in ~79% of facts)
  zipf-1m    1,000,000 facts of one agent, Zipf corpus
  10k, 100k  10,000 / 100,000 facts of one agent, sentence corpus
  1m         1,000,000 facts: 100 agents x 9,000 plus the searched agent's 100,000

  --scales LIST          comma-separated subset of ${SCALE_NAMES.join(',')}
  --runs N               whole runs, each on fresh data dirs, 1-20 (default 1)
  --queries N            timed queries after seeding, 10-100000 (default 1000)
  --restart-queries N    timed queries after the restart, 1-100000, at most --queries (default 300)
  --limit N              memory.search limit, 1-100 (default 10)
  --seed N               corpus and query seed, a 32-bit integer (default 1)
  --in-flight N          admin.import calls in flight while seeding, 1-64 (default 4)
  --baseline DIR         also measure the memoryd of checkout DIR (built: npm ci there),
                         labelled "base", started as its own launchers start it
  --memoryd JSON         a memoryd to measure, repeatable; the first is the reference of the
                         A/B ratios. Default: {"label":"memoryd"} (this checkout). Keys:
                         label; checkout (a built checkout, default this one); args (its
                         flags, after the bench's); env (variables over the bench's); nodeOptions;
                         launch: "own" (default: as the checkout's launchers start it,
                         its @memoryd/client's MEMORYD_NODE_OPTIONS and memorydEnv where it
                         has them) or "plain" (node bin/memoryd.js); clientBusyPollUs (the
                         timing DaemonClient's busyPollUs, for a client that has one);
                         postgres: true (on --store postgres, in a fresh schema of the
                         server the PG* variables name, dropped after); embeddings: true
                         (meaning search on, against the --embeddings server)
  --postgres             also measure this checkout's memoryd on --store postgres
  --embeddings           also measure this checkout's memoryd with meaning search on
                         ("hybrid": --embedder openai against scripts/bench/search/
                         embed-server.mjs, hash vectors of --embed-dims dimensions, in a
                         process of its own); after seeding, the searches wait until
                         it has embedded every fact; after the restart they do not;
                         with --baseline, also the baseline's ("base-hybrid")
  --embed-dims N         the vectors' dimensions, 8-4096 (default 384)
  --filters              Zipf facts carry tags (a tag on ~50%, one on ~1%, 20 topics
                         Zipf-drawn on 30%), and after the unfiltered searches the
                         same queries run again, unfiltered and under each filter
                         (a tag on ~1%, on ~50%, the newest 10% by time, each tag
                         with that window), every (server, filter) pair interleaved
                         in one pass, on memoryd and on FTS5 given the same filter
                         (a WHERE on the time, a +rowid IN (SELECT ...) on a tag
                         table); each is reported ÷ the same server's unfiltered p99
                         of that pass and ÷ FTS5's filtered p99. Zipf scales only.
  --no-fts5, --no-echo   leave the peer or the floor out (their ratios are then -)
  --keep                 keep the data dirs and print where they are
  --json                 print the results as one JSON document instead of the report
  --help                 this text

Needs a built daemon (npm run bench:search builds first). Runs under
${os.tmpdir()}; zipf-1m needs some minutes a server and ~1 GB of disk each.
Servers and temp dirs are stopped and removed on exit, also on error or
Ctrl-C (except with --keep).`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = {
    scales: DEFAULT_SCALES, runs: 1, queries: 1_000, restartQueries: 300, limit: 10, seed: 1, inFlight: 4,
    memoryd: /** @type {import('./search/subjects.mjs').MemorydSpec[]} */ ([]), baseline: undefined, postgres: false,
    fts5: true, echo: true, keep: false, json: false, help: false, embeddings: false, embedDims: 384, filters: false,
  };
  const integer = (flag, raw, min, max) => {
    const value = Number(raw);
    if (raw === undefined || !Number.isInteger(value) || value < min || value > max) throw usage(`${flag} needs an integer from ${min} to ${max}`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--keep') opts.keep = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--postgres') opts.postgres = true;
    else if (arg === '--embeddings') opts.embeddings = true;
    else if (arg === '--filters') opts.filters = true;
    else if (arg === '--embed-dims') opts.embedDims = integer(arg, argv[++i], 8, 4096);
    else if (arg === '--no-fts5') opts.fts5 = false;
    else if (arg === '--no-echo') opts.echo = false;
    else if (arg === '--runs') opts.runs = integer(arg, argv[++i], 1, 20);
    else if (arg === '--queries') opts.queries = integer(arg, argv[++i], 10, 100_000);
    else if (arg === '--restart-queries') opts.restartQueries = integer(arg, argv[++i], 1, 100_000);
    else if (arg === '--limit') opts.limit = integer(arg, argv[++i], 1, 100);
    else if (arg === '--seed') opts.seed = integer(arg, argv[++i], 0, 2 ** 32 - 1);
    else if (arg === '--in-flight') opts.inFlight = integer(arg, argv[++i], 1, 64);
    else if (arg === '--baseline') {
      const dir = argv[++i];
      if (dir === undefined || dir === '') throw usage('--baseline needs a checkout directory');
      opts.baseline = path.resolve(dir);
    } else if (arg === '--memoryd') opts.memoryd.push(memorydSpec(argv[++i]));
    else if (arg === '--scales') {
      const list = String(argv[++i] ?? '').toLowerCase().split(',').filter((s) => s !== '');
      const unknown = list.find((s) => !SCALE_NAMES.includes(s));
      if (list.length === 0 || unknown !== undefined) {
        throw usage(`--scales takes a comma-separated subset of ${SCALE_NAMES.join(',')}${unknown ? `, not ${JSON.stringify(unknown)}` : ''}`);
      }
      opts.scales = SCALE_NAMES.filter((s) => list.includes(s));
    } else throw usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (opts.restartQueries > opts.queries) throw usage('--restart-queries must be at most --queries');
  const untagged = opts.scales.filter((s) => !s.startsWith('zipf-'));
  if (opts.filters && untagged.length > 0) throw usage(`--filters times the Zipf scales, whose facts it tags; not ${untagged.join(', ')}`);
  if (opts.memoryd.length === 0) opts.memoryd.push({ label: 'memoryd' });
  if (opts.baseline !== undefined) opts.memoryd.push({ label: 'base', checkout: opts.baseline });
  if (opts.postgres) opts.memoryd.push({ label: 'postgres', postgres: true });
  // Its embedder's URL is known once that server runs (main).
  if (opts.embeddings) opts.memoryd.push({ label: 'hybrid', embeddings: true, args: [] });
  // With a baseline, its meaning search too: fused search A/B, one build against the other.
  if (opts.embeddings && opts.baseline !== undefined) opts.memoryd.push({ label: 'base-hybrid', checkout: opts.baseline, embeddings: true, args: [] });
  const labels = opts.memoryd.map((m) => m.label);
  if (new Set([...labels, 'fts5', 'echo']).size !== labels.length + 2) throw usage(`every memoryd needs a label of its own, not fts5 or echo (got ${labels.join(', ')})`);
  return opts;
}

/** A --memoryd value, checked. @param {string | undefined} text */
function memorydSpec(text) {
  let spec;
  try {
    spec = JSON.parse(String(text));
  } catch {
    throw usage(`--memoryd needs a JSON object, got ${JSON.stringify(text)}`);
  }
  const known = ['label', 'checkout', 'args', 'env', 'nodeOptions', 'launch', 'clientBusyPollUs', 'postgres', 'embeddings'];
  const strings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (typeof spec !== 'object' || spec === null || typeof spec.label !== 'string' || spec.label === '') throw usage('--memoryd needs a "label"');
  const unknown = Object.keys(spec).find((k) => !known.includes(k));
  if (unknown !== undefined) throw usage(`--memoryd: unknown key ${JSON.stringify(unknown)} (known: ${known.join(', ')})`);
  if (spec.args !== undefined && !strings(spec.args)) throw usage('--memoryd: "args" is a list of strings');
  if (spec.nodeOptions !== undefined && !strings(spec.nodeOptions)) throw usage('--memoryd: "nodeOptions" is a list of strings');
  if (spec.env !== undefined && (typeof spec.env !== 'object' || !Object.values(spec.env).every((v) => typeof v === 'string'))) throw usage('--memoryd: "env" maps names to strings');
  if (spec.launch !== undefined && spec.launch !== 'own' && spec.launch !== 'plain') throw usage('--memoryd: "launch" is "own" or "plain"');
  if (spec.checkout !== undefined) spec.checkout = path.resolve(spec.checkout);
  return spec;
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
function commit(dir = here) {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** How a memoryd spec reads in the report. @param {import('./search/subjects.mjs').MemorydSpec} m */
function describe(m) {
  const parts = [m.checkout === undefined ? 'this checkout' : `${m.checkout} (commit ${commit(m.checkout)})`];
  if (m.launch === 'plain') parts.push('plain launch');
  if (m.args?.length) parts.push(`args ${m.args.join(' ')}`);
  if (m.nodeOptions?.length) parts.push(`node ${m.nodeOptions.join(' ')}`);
  if (m.env !== undefined) parts.push(`env ${Object.entries(m.env).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  if (m.clientBusyPollUs !== undefined) parts.push(`client busyPollUs ${m.clientBusyPollUs}`);
  if (m.postgres) parts.push('--store postgres');
  return `${m.label}: ${parts.join(', ')}`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  assertDaemonBuilt();
  // The FTS5 peer runs on better-sqlite3, one of the benches' own packages.
  if (opts.fts5) await ensureBenchDeps();
  if (opts.postgres || opts.memoryd.some((m) => m.postgres)) {
    if (process.env.PGHOST === undefined && process.env.PGDATABASE === undefined) {
      throw usage('a memoryd on PostgreSQL needs a server: set the PG* variables (PGHOST, PGDATABASE, ...), e.g. from scripts/ci/pg-throwaway.sh start DIR');
    }
  }
  const root = opts.keep ? fs.mkdtempSync(path.join(os.tmpdir(), 'memoryd-bench-search-')) : makeTempDir('memoryd-bench-search-');
  const meta = {
    startedAt: new Date().toISOString(), commit: commit(), node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length,
    seed: opts.seed, queries: opts.queries, restartQueries: opts.restartQueries, limit: opts.limit, filters: opts.filters,
    servers: [...opts.memoryd.map(describe), ...(opts.fts5 ? ['fts5: SQLite FTS5 (better-sqlite3)'] : []), ...(opts.echo ? ['echo: fixed answers'] : [])],
  };
  const embedServer = opts.embeddings ? await startEmbedServer(opts.embedDims) : undefined;
  for (const m of opts.memoryd) {
    if (m.embeddings && embedServer !== undefined) m.args = ['--embedder', 'openai', '--embed-url', embedServer.url, '--embed-model', `hash-${opts.embedDims}`];
  }
  const timer = startSearchTimer();
  const runs = [];
  try {
    for (let r = 0; r < opts.runs; r++) {
      const scales = [];
      for (const name of opts.scales) {
        const dir = path.join(root, `run${r + 1}-${name}`);
        const servers = await makeServers(opts.memoryd, { fts5: opts.fts5, echo: opts.echo, protocolVersion: PROTOCOL_VERSION }, dir);
        try {
          const scale = /** @type {import('./search/dataset.mjs').Scale} */ (SCALES[name]);
          scales.push(await runScale(scale, servers, timer, opts, (line) => progress(`run ${r + 1}/${opts.runs}, ${line}`)));
        } finally {
          for (const s of servers) await s.close();
          if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
        }
      }
      runs.push({ scales });
    }
  } finally {
    await timer.close();
    if (embedServer !== undefined) await stopChild(embedServer.child);
  }
  const doc = { meta, runs };
  process.stdout.write(`${opts.json ? JSON.stringify(doc, null, 2) : formatReport(doc)}\n`);
  if (opts.keep) progress(`kept: ${root}`);
  return 0;
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
