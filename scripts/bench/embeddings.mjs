// `npm run bench:embeddings`: what meaning search costs a write. Two
// daemons of this checkout, one without an embedder and one with
// (--embedder openai against scripts/bench/search/embed-server.mjs in a
// process of its own, hash vectors of 384 dimensions), take memory.add in
// interleaved rounds on one connection each, sync writes as shipped; the
// embedding daemon embeds in the background meanwhile, which is the point.
// Prints p50, p99 and throughput of each, and the embedding one's ÷ the
// other's; then how far behind the queue was when the adds stopped and how
// long it took to catch up. Then what meaning search costs a search,
// without the provider's round trip: one store of --facts facts in this
// process, searched lexically and fused (an embedder in this process
// answering hash vectors at once), interleaved; and that round trip alone,
// to the embed server, for the sum. Progress goes to stderr.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertDaemonBuilt, cleanupSync, makeTempDir, startNode, stopChild, waitForSocket } from './children.mjs';
import { connect } from './ndjson-client.mjs';
import { SCALES, SEARCHED_AGENT, importBatches } from './search/dataset.mjs';
import { startEmbedServer } from './search/embed-server.mjs';
import { drawQueries } from './search/queries.mjs';
import { formatTable, percentile } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const DAEMON_BIN = path.resolve(here, '../../packages/daemon/bin/memoryd.js');

const HELP = `usage: node scripts/bench/embeddings.mjs [--rounds N] [--adds N] [--dims N] [--facts N] [--searches N] [--json]

memory.add on a daemon without an embedder and on one with an embedder
(hash vectors from a local server of its own), interleaved: each round
sends --adds adds to one, then to the other, the order swapped every
round, one request in flight. Reports each daemon's p50, p99 and adds per
second and the embedding daemon's ratios to the plain one (1.00: no cost),
and the embedding queue's backlog when the adds stop.

Then searches: a LevelDB store of --facts facts of one agent, the search
bench's Zipf corpus, in this process, each fact embedded (hash vectors, in
this process), then --searches distinct queries drawn as the search bench
draws them, sent to it lexically and fused,
interleaved: memoryd's own cost of meaning search, p50 and p99 and the
fused ÷ lexical ratios; and the same number of query embeddings sent to
the embed server over HTTP: the provider's round trip, which a fused
search adds on top with any out-of-process embedder.

  --rounds N  rounds, 2-200 (default 10)
  --adds N    adds a daemon per round, 10-10000 (default 500)
  --dims N    the vectors' dimensions, 8-4096 (default 384)
  --facts N   facts of the search part, 1000-1000000 (default 100000; 0 skips it)
  --searches N  queries of the search part, 100-100000 (default 1000)
  --json      print the figures as one JSON document
  --help      this text`;

function parseArgs(argv) {
  const opts = { rounds: 10, adds: 500, dims: 384, facts: 100_000, searches: 1_000, json: false, help: false };
  const int = (flag, raw, min, max) => {
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min || v > max) throw Object.assign(new Error(`${flag} needs an integer from ${min} to ${max}`), { exitCode: 2 });
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--rounds') opts.rounds = int(a, argv[++i], 2, 200);
    else if (a === '--adds') opts.adds = int(a, argv[++i], 10, 10_000);
    else if (a === '--dims') opts.dims = int(a, argv[++i], 8, 4096);
    else if (a === '--facts') {
      opts.facts = Number(argv[i + 1]) === 0 ? (i++, 0) : int(a, argv[++i], 1000, 1_000_000);
    } else if (a === '--searches') opts.searches = int(a, argv[++i], 100, 100_000);
    else if (a === '--json') opts.json = true;
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw Object.assign(new Error(`unknown argument ${JSON.stringify(a)}\n(see --help)`), { exitCode: 2 });
  }
  return opts;
}

const progress = (line) => process.stderr.write(`bench:embeddings: ${line}\n`);


async function startDaemon(label, dir, extra) {
  const socketPath = path.join(dir, `${label}.sock`);
  const child = startNode(label, [DAEMON_BIN, '--socket', socketPath, '--data-dir', path.join(dir, label), '--log-level', 'warn', ...extra]);
  await waitForSocket(child, socketPath);
  const client = await connect(socketPath);
  return { label, child, client };
}

/** `n` adds of fresh texts, one in flight; their latencies in ns. */
async function adds(d, n, round) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const content = `round ${round} fact ${i} of ${d.label}: the build cache on worker ${(i * 7919) % 1000} was cleared after ${i % 60} minutes`;
    const started = process.hrtime.bigint();
    await d.client.request('memory.add', { agentId: 'bench', content });
    samples.push(Number(process.hrtime.bigint() - started));
  }
  return samples;
}

function figures(samples, ms) {
  const sorted = Float64Array.from(samples).sort();
  return { adds: samples.length, p50Ms: percentile(sorted, 50) / 1e6, p99Ms: percentile(sorted, 99) / 1e6, perSecond: samples.length / (ms / 1000) };
}

/**
 * The search part: memoryd's own cost of a fused search, in this process,
 * and the provider's round trip, measured apart.
 */
async function searchPart(opts, embedUrl, dir) {
  const { Embeddings, openStore, silentLogger } = await import('@memoryd/daemon');
  const { hashVector } = await import('@memoryd/test-support');
  const store = await openStore({ dataDir: path.join(dir, 'search'), sync: false, logger: silentLogger });
  const embedder = {
    kind: 'openai', model: `hash-${opts.dims}`, space: `openai:hash-${opts.dims}`, maxBatch: 64,
    embed: async (texts) => texts.map((t) => Float32Array.from(hashVector(t, opts.dims))),
    close: async () => {},
  };
  const embeddings = new Embeddings({ embedder, store: store.vectors(), logger: silentLogger });
  try {
    progress(`search part: importing ${opts.facts.toLocaleString('en-US')} facts`);
    // The search bench's Zipf corpus and queries (scripts/bench/search/), at --facts facts of one agent.
    const scale = { ...SCALES['zipf-100k'], name: `zipf-${opts.facts}`, searched: opts.facts, total: opts.facts };
    const kept = [];
    for (const records of importBatches(scale, { seed: 1, batchSize: 1000, kept })) await store.importRecords({ records });
    const started = Date.now();
    embeddings.start();
    while (embeddings.state().pending > 0 || embeddings.state().dimensions === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const embedMs = Date.now() - started;
    progress(`search part: embedded in ${(embedMs / 1000).toFixed(1)} s; ${opts.searches} searches each way, interleaved`);
    // Each query once: a repeated one would be answered from the query vectors' cache.
    const queries = [...new Set(drawQueries(kept, 2 * opts.searches, 1).map((q) => q.text))].slice(0, opts.searches);
    const lexical = (query) => async (n) => (await store.searchFacts({ agentId: SEARCHED_AGENT, query, limit: n })).facts;
    const lex = [];
    const fused = [];
    const provider = [];
    const agent = new http.Agent({ keepAlive: true });
    const roundTrip = (text) =>
      new Promise((resolve, reject) => {
        const req = http.request(`${embedUrl}/v1/embeddings`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'x', input: [text] }));
      });
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i];
      const steps = [
        async () => { const t = process.hrtime.bigint(); await lexical(q)(10); lex.push(Number(process.hrtime.bigint() - t)); },
        async () => { const t = process.hrtime.bigint(); await embeddings.search(SEARCHED_AGENT, q, 10, lexical(q)); fused.push(Number(process.hrtime.bigint() - t)); },
        async () => { const t = process.hrtime.bigint(); await roundTrip(q); provider.push(Number(process.hrtime.bigint() - t)); },
      ];
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]();
    }
    agent.destroy();
    const fig = (samples) => {
      const sorted = Float64Array.from(samples).sort();
      return { count: samples.length, p50Ms: percentile(sorted, 50) / 1e6, p99Ms: percentile(sorted, 99) / 1e6 };
    };
    const l = fig(lex);
    const f = fig(fused);
    return { facts: opts.facts, embedMs, lexical: l, fused: f, provider: fig(provider), ratio: { p50: f.p50Ms / l.p50Ms, p99: f.p99Ms / l.p99Ms } };
  } finally {
    await embeddings.close();
    await store.close();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  assertDaemonBuilt();
  const dir = makeTempDir('memoryd-bench-embeddings-');
  const embed = await startEmbedServer(opts.dims);
  const plain = await startDaemon('plain', dir, []);
  const hybrid = await startDaemon('embedding', dir, ['--embedder', 'openai', '--embed-url', embed.url, '--embed-model', `hash-${opts.dims}`]);
  const daemons = [plain, hybrid];
  const samples = new Map(daemons.map((d) => [d, []]));
  const busyMs = new Map(daemons.map((d) => [d, 0]));
  try {
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 === 0 ? daemons : [...daemons].reverse();
      for (const d of order) {
        const started = performance.now();
        samples.get(d).push(...(await adds(d, opts.adds, r)));
        busyMs.set(d, busyMs.get(d) + performance.now() - started);
      }
      progress(`round ${r + 1}/${opts.rounds} done`);
    }
    const status = await hybrid.client.request('daemon.status', {});
    const backlog = status.embeddings.pending;
    const started = Date.now();
    for (;;) {
      const s = await hybrid.client.request('daemon.status', {});
      if (s.embeddings.pending === 0) break;
      if (Date.now() - started > 600_000) throw new Error(`not caught up after 10 minutes: ${JSON.stringify(s.embeddings)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const catchUpMs = Date.now() - started;
    // The daemons are done: stop them so the search part has the machine.
    for (const d of daemons) {
      await d.client.close().catch(() => {});
      await stopChild(d.child);
    }
    const search = opts.facts === 0 ? undefined : await searchPart(opts, embed.url, dir);
    const a = figures(samples.get(plain), busyMs.get(plain));
    const b = figures(samples.get(hybrid), busyMs.get(hybrid));
    const doc = {
      meta: { startedAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length, rounds: opts.rounds, addsPerRound: opts.adds, dims: opts.dims },
      plain: a,
      embedding: b,
      ratio: { p50: b.p50Ms / a.p50Ms, p99: b.p99Ms / a.p99Ms, perSecond: b.perSecond / a.perSecond },
      queue: { backlogAtEnd: backlog, catchUpMs },
      search,
    };
    if (opts.json) process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    else {
      const row = (name, f) => [name, f.adds, f.p50Ms.toFixed(3), f.p99Ms.toFixed(3), Math.round(f.perSecond)];
      process.stdout.write(
        `${formatTable(['daemon', 'adds', 'p50 ms', 'p99 ms', 'adds/s'], [row('plain', a), row('embedding', b)])}\n\n` +
          `embedding ÷ plain: p50 ${doc.ratio.p50.toFixed(3)}, p99 ${doc.ratio.p99.toFixed(3)}, adds/s ${doc.ratio.perSecond.toFixed(3)}\n` +
          `the embedding queue was ${backlog} facts behind when the adds stopped; caught up ${catchUpMs} ms later\n`,
      );
      if (search !== undefined) {
        const srow = (name, f) => [name, f.count, f.p50Ms.toFixed(3), f.p99Ms.toFixed(3)];
        process.stdout.write(
          `\nsearches in this process, ${search.facts.toLocaleString('en-US')} facts of ${opts.dims} dimensions (embedded in ${(search.embedMs / 1000).toFixed(1)} s):\n` +
            `${formatTable(['search', 'count', 'p50 ms', 'p99 ms'], [srow('lexical', search.lexical), srow('fused', search.fused), srow('provider round trip', search.provider)])}\n\n` +
            `fused ÷ lexical: p50 ${search.ratio.p50.toFixed(3)}, p99 ${search.ratio.p99.toFixed(3)}; ` +
            `fused + the provider's round trip, p50 ${(search.fused.p50Ms + search.provider.p50Ms).toFixed(3)} ms, p99 ${(search.fused.p99Ms + search.provider.p99Ms).toFixed(3)} ms\n`,
        );
      }
    }
    return 0;
  } finally {
    for (const d of daemons) {
      await d.client.close().catch(() => {});
      if (!d.child.done) await stopChild(d.child);
    }
    await stopChild(embed.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    cleanupSync();
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench:embeddings: ${err?.exitCode === 2 ? err.message : (err?.stack ?? err)}\n`);
    cleanupSync();
    process.exit(err?.exitCode ?? 1);
  },
);
