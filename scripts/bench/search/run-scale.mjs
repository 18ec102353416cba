// One scale of the search bench, start to end, on its own fresh data dir:
// load, RSS, searches, RSS, (at 10k, or 100k when asked) server-memory on
// the same texts timed in blocks alternating with memoryd's, shutdown,
// store size, and cold start to the first answer (median of a few).

import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemorySearch } from '@memoryd/protocol';
import { connect } from '../ndjson-client.mjs';
import { percentile } from '../stats.mjs';
import { timeInterleaved } from './compare.mjs';
import { SEARCHED_AGENT, importBatches } from './dataset.mjs';
import {
  assertSameBuild, coldStart, importAll, rssBreakdown, rssBytes, searchClient, shutdownDaemon, startDaemon, startSearchTimer, treeBytes,
} from './memoryd.mjs';
import { drawQueries } from './queries.mjs';
import { startServerMemory } from './server-memory.mjs';

/** Records per admin.import call: the protocol's maximum (Limits.importMaxRecords). */
const IMPORT_BATCH = 1_000;

/**
 * How long the idle restart leaves the daemon alone before its first
 * search: a service restarted some seconds before its agent searches,
 * which is when the daemon's search warm-up (ADR 0022) runs.
 */
const IDLE_RESTART_MS = 5_000;

/**
 * Latency figures of one run of timed requests.
 * @param {number[]} samplesNs
 */
export function latency(samplesNs) {
  const sorted = Float64Array.from(samplesNs).sort();
  const sum = samplesNs.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    meanMs: sorted.length === 0 ? NaN : sum / sorted.length / 1e6,
    p50Ms: percentile(sorted, 50) / 1e6,
    p99Ms: percentile(sorted, 99) / 1e6,
    maxMs: sorted.length === 0 ? NaN : /** @type {number} */ (sorted[sorted.length - 1]) / 1e6,
  };
}

/** Median of `values` (the mean of the middle two for an even count). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? /** @type {number} */ (sorted[mid]) : (/** @type {number} */ (sorted[mid - 1]) + /** @type {number} */ (sorted[mid])) / 2;
}

/**
 * Latency per kind of query (whole words by count, and prefix queries), so
 * a slow p99 can be traced to the queries that make it.
 * @param {{text: string, prefix: boolean}[]} queries
 * @param {number[]} samplesNs in the order of `queries`
 */
function latencyByKind(queries, samplesNs) {
  /** @type {Record<string, number[]>} */
  const groups = { '1 word': [], '2 words': [], '3 words': [], prefix: [] };
  queries.forEach((q, i) => {
    const words = q.text.split(' ').length;
    groups[q.prefix ? 'prefix' : words === 1 ? '1 word' : `${words} words`]?.push(/** @type {number} */ (samplesNs[i]));
  });
  return Object.fromEntries(Object.entries(groups).map(([kind, samples]) => [kind, latency(samples)]));
}

/** The classes of issue 15: by the share of the agent's facts holding the query's most common word. */
const CLASSES = [
  { name: '>= 50%', min: 0.5 },
  { name: '10-50%', min: 0.1 },
  { name: '1-10%', min: 0.01 },
  { name: '< 1%', min: 0 },
];

/**
 * Latency per class of query by the document frequency of its most common
 * word (as written, lower-cased: close to the daemon's terms), so that
 * the common-word queries, the expensive ones, are seen apart.
 * @param {{content: string}[]} facts the searched agent's
 * @param {{text: string}[]} queries
 * @param {number[]} samplesNs in the order of `queries`
 */
function latencyByClass(facts, queries, samplesNs) {
  const df = new Map();
  for (const f of facts) for (const w of new Set(f.content.toLowerCase().split(/[^\p{L}\p{N}_]+/u))) if (w !== '') df.set(w, (df.get(w) ?? 0) + 1);
  /** @type {Record<string, number[]>} */
  const groups = Object.fromEntries(CLASSES.map((c) => [c.name, []]));
  queries.forEach((q, i) => {
    const words = q.text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '');
    const share = Math.max(0, ...words.map((w) => (df.get(w) ?? 0) / facts.length));
    const cls = /** @type {{name: string}} */ (CLASSES.find((c) => share >= c.min));
    groups[cls.name]?.push(/** @type {number} */ (samplesNs[i]));
  });
  return Object.fromEntries(Object.entries(groups).map(([name, samples]) => [name, latency(samples)]));
}

/**
 * Runs memoryd on `scale` in `root/<scale>` and returns its figures, the
 * searched agent's facts and the timed and warm-up queries (for server-memory).
 * @param {import('./dataset.mjs').Scale} scale
 * @param {{seed: number, queries: number, warmup: number, limit: number, inFlight: number, coldStarts: number, keep: boolean,
 *   build: string, clientBusyPollUs?: number, compare: boolean, compareBlocks: number, loadBudgetMs: number, searchBudgetMs: number}} opts
 *   `build`: the daemon's build fingerprint at the start of the run; `clientBusyPollUs`: the searching DaemonClient's
 *   busyPollUs (undefined: its default); `compare`: run server-memory against this scale's loading daemon
 * @param {string} root
 * @param {(line: string) => void} progress
 */
export async function runMemoryd(scale, opts, root, progress) {
  const dir = path.join(root, scale.name);
  const dataDir = path.join(dir, 'data');
  const socketPath = path.join(dir, 'memoryd.sock');
  fs.mkdirSync(dir, { recursive: true });
  const say = (line) => progress(`${scale.name}: ${line}`);

  assertSameBuild(opts.build, `starting memoryd for ${scale.name}`);
  say(`starting memoryd on a fresh data dir (${dataDir})`);
  const child = await startDaemon(socketPath, dataDir, scale.name);
  const client = await connect(socketPath);
  const hello = await client.request('daemon.hello', { client: 'memoryd-bench-search' });

  /** @type {import('./dataset.mjs').KeptFact[]} */
  const kept = [];
  say(`loading ${scale.total.toLocaleString('en-US')} facts with admin.import (${IMPORT_BATCH} per call, ${opts.inFlight} in flight)`);
  const batches = importBatches(scale, { seed: opts.seed, batchSize: IMPORT_BATCH, kept });
  const load = await importAll(client, batches, { total: scale.total, inFlight: opts.inFlight, progress: say });
  const status = await client.request('daemon.status', {});
  if (status.facts !== scale.total) throw new Error(`daemon.status counts ${status.facts} facts after loading ${scale.total}`);
  const rssAfterLoad = rssBytes(child.pid);
  const partsAfterLoad = rssBreakdown(child.pid);
  say(`loaded in ${(load.ms / 1000).toFixed(1)} s (${Math.round(load.imported / (load.ms / 1000)).toLocaleString('en-US')} facts/s)`);

  const queries = drawQueries(kept, opts.queries, opts.seed);
  // A stream of its own, so no timed query is one the daemon just answered.
  const warmup = drawQueries(kept, opts.warmup, opts.seed, 'warm-up');
  say(`searching: ${warmup.length} warm-up, then ${queries.length} timed queries from the first, one in flight`);
  // One timing client for this scale's runs (killed with the bench on a failure).
  const timer = startSearchTimer();
  const searchStart = performance.now();
  const searched = await timer.time(socketPath, SEARCHED_AGENT, queries, { warmup, limit: opts.limit, busyPollUs: opts.clientBusyPollUs });
  const rssAfterSearch = rssBytes(child.pid);
  const partsAfterSearch = rssBreakdown(child.pid);
  const search = latency(searched.samplesNs);
  const floor = latency(searched.floorNs);
  say(`searched in ${((performance.now() - searchStart) / 1000).toFixed(1)} s: p50 ${search.p50Ms.toFixed(3)} ms, p99 ${search.p99Ms.toFixed(3)} ms ` +
    `(daemon.hello after: p50 ${floor.p50Ms.toFixed(3)} ms, p99 ${floor.p99Ms.toFixed(3)} ms)`);

  // The comparison re-warms both sides at each block's start, from queries of their own.
  const compareWarmup = warmup.length > 0 ? warmup : drawQueries(kept, 300, opts.seed, 'warm-up');
  const comparison = opts.compare ? await compareWithServerMemory(scale.name, socketPath, kept, queries, compareWarmup, opts, root, say) : undefined;

  await shutdownDaemon(client, child);

  say(`cold start ×${opts.coldStarts}: spawning memoryd on the same data dir, polling its socket every 2 ms`);
  const colds = [];
  /** @type {{rssBytes: number, parts: ReturnType<typeof rssBreakdown>, search: ReturnType<typeof latency>, first300: ReturnType<typeof latency>, floor: ReturnType<typeof latency>} | undefined} */
  let serving;
  for (let i = 0; i < opts.coldStarts; i++) {
    // A different probe each time, so no run answers from the last one's warm blocks alone.
    const probe = /** @type {{text: string}} */ (queries[i % queries.length]).text;
    assertSameBuild(opts.build, `the cold start of ${scale.name}`);
    const run = await coldStart(socketPath, dataDir, { agentId: SEARCHED_AGENT, query: probe, label: scale.name });
    const rss = rssBytes(run.child.pid);
    if (i === opts.coldStarts - 1) {
      // The daemon as it serves day to day: restarted on the store, then
      // the same searches. (The loading daemon's RSS also holds what the
      // bulk import grew its heap and allocator to.)
      say('serving: the same searches through the restarted daemon');
      const again = await timer.time(socketPath, SEARCHED_AGENT, queries, { warmup, limit: opts.limit, busyPollUs: opts.clientBusyPollUs });
      serving = {
        rssBytes: rssBytes(run.child.pid), parts: rssBreakdown(run.child.pid), search: latency(again.samplesNs), first300: latency(again.samplesNs.slice(0, 300)),
        floor: latency(again.floorNs),
      };
      say(`serving: p50 ${serving.search.p50Ms.toFixed(3)} ms, p99 ${serving.search.p99Ms.toFixed(3)} ms (first 300: p99 ${serving.first300.p99Ms.toFixed(3)} ms; ` +
        `daemon.hello after: p50 ${serving.floor.p50Ms.toFixed(3)} ms, p99 ${serving.floor.p99Ms.toFixed(3)} ms), RSS ${(serving.rssBytes / 1e6).toFixed(1)} MB`);
    }
    await shutdownDaemon(run.client, run.child);
    colds.push({ acceptMs: run.acceptMs, firstAnswerMs: run.answerMs, firstSearchMs: run.answerMs - run.acceptMs, rssBytes: rss, probe, probeFacts: run.facts });
  }
  const cold = {
    runs: colds,
    acceptMs: median(colds.map((c) => c.acceptMs)),
    firstAnswerMs: median(colds.map((c) => c.firstAnswerMs)),
    maxFirstAnswerMs: Math.max(...colds.map((c) => c.firstAnswerMs)),
    firstSearchMs: median(colds.map((c) => c.firstSearchMs)),
    maxFirstSearchMs: Math.max(...colds.map((c) => c.firstSearchMs)),
  };
  const rssCold = Math.max(...colds.map((c) => c.rssBytes));
  say(`cold start: median accept ${cold.acceptMs.toFixed(1)} ms, first answer ${cold.firstAnswerMs.toFixed(1)} ms ` +
    `(runs: ${colds.map((c) => c.firstAnswerMs.toFixed(1)).join(', ')} ms)`);
  say(`idle restart: memoryd restarted on the store and left idle ${IDLE_RESTART_MS / 1000} s, then the first 300 searches`);
  assertSameBuild(opts.build, `the idle restart of ${scale.name}`);
  const idleChild = await startDaemon(socketPath, dataDir, `${scale.name}, idle restart`);
  await sleep(IDLE_RESTART_MS);
  const idle = await timer.time(socketPath, SEARCHED_AGENT, queries.slice(0, 300), { warmup: [], limit: opts.limit, busyPollUs: opts.clientBusyPollUs });
  await shutdownDaemon(await connect(socketPath), idleChild);
  await timer.close();
  const idleRestart = latency(idle.samplesNs);
  say(`idle restart: the first search ${(idle.samplesNs[0] / 1e6).toFixed(3)} ms, p99 of 300 ${idleRestart.p99Ms.toFixed(3)} ms`);

  // Measured at rest, once the last daemon on it has stopped: right after
  // the load, LevelDB's write-ahead log still holds what a reopen turns
  // into tables, and background compaction may be running.
  const storeBytes = treeBytes(path.join(dataDir, 'store'));

  if (!opts.keep) fs.rmSync(dir, { recursive: true, force: true });
  return {
    result: {
      scale: scale.name,
      facts: scale.total,
      agents: 1 + scale.others,
      searchedFacts: scale.searched,
      daemonVersion: hello.daemonVersion,
      load: { ms: load.ms, factsPerSecond: load.imported / (load.ms / 1000) },
      storeBytes,
      rssBytes: { afterLoad: rssAfterLoad, afterSearch: rssAfterSearch, coldAfterFirstAnswer: rssCold, serving: serving?.rssBytes ?? rssCold },
      rssParts: { afterLoad: partsAfterLoad, afterSearch: partsAfterSearch, serving: serving?.parts },
      corpus: scale.corpus,
      servingSearch: serving?.search,
      servingFirst300: serving?.first300,
      servingFloor: serving?.floor,
      idleRestart: { firstMs: idle.samplesNs[0] / 1e6, ...idleRestart },
      coldStart: cold,
      search: {
        ...search,
        floor,
        answeredWithFacts: searched.answeredWithFacts,
        prefixQueries: queries.filter((q) => q.prefix).length,
        byKind: latencyByKind(queries, searched.samplesNs),
        byClass: latencyByClass(kept, queries, searched.samplesNs),
      },
      dataDir: opts.keep ? dataDir : undefined,
    },
    comparison,
  };
}

/**
 * server-memory on the searched agent's texts of a scale, against the
 * scale's daemon (still running, its index in memory and warm): both time
 * the same queries in alternating blocks (compare.mjs); figures and the
 * ratios of server-memory's to memoryd's.
 * @param {string} scaleName
 * @param {string} socketPath the running daemon's
 * @param {import('./dataset.mjs').KeptFact[]} kept
 * @param {{text: string}[]} queries
 * @param {{text: string}[]} warmup
 * @param {{loadBudgetMs: number, searchBudgetMs: number, limit: number, compareBlocks: number, clientBusyPollUs?: number}} opts
 * @param {string} root
 * @param {(line: string) => void} say
 */
async function compareWithServerMemory(scaleName, socketPath, kept, queries, warmup, opts, root, say) {
  const memoryFile = path.join(root, `server-memory-${scaleName}.jsonl`);
  say(`server-memory: loading ${kept.length.toLocaleString('en-US')} entities with create_entities (1,000 per call)`);
  const client = searchClient(socketPath, opts.clientBusyPollUs);
  let session;
  try {
    session = await startServerMemory(kept, { memoryFile, loadBudgetMs: opts.loadBudgetMs, progress: say });
    if (session.skipped !== undefined) {
      say(`server-memory: skipped, ${session.skipped}`);
      return { scale: scaleName, texts: kept.length, skipped: session.skipped, loadMs: session.loadMs };
    }
    say(`comparing: ${queries.length} queries in ${opts.compareBlocks} blocks, memoryd's then server-memory's`);
    const memoryd = async (text) => (await client.call(MemorySearch, { agentId: SEARCHED_AGENT, query: text, limit: opts.limit })).facts.length;
    const run = await timeInterleaved({
      memoryd, serverMemory: session.search, queries, warmup, blocks: opts.compareBlocks, budgetMs: opts.searchBudgetMs, progress: say,
    });
    const ours = latency(run.memoryd.samplesNs);
    const theirs = latency(run.serverMemory.samplesNs);
    const blockRatios = run.perBlock.map((b) => b.serverMemoryP50Ms / b.memorydP50Ms).sort((a, b) => a - b);
    say(`server-memory: p50 ${theirs.p50Ms.toFixed(3)} ms, p99 ${theirs.p99Ms.toFixed(3)} ms; memoryd alongside: ` +
      `p50 ${ours.p50Ms.toFixed(3)} ms, p99 ${ours.p99Ms.toFixed(3)} ms, over ${theirs.count} queries`);
    return {
      scale: scaleName,
      texts: kept.length,
      loadMs: session.loadMs,
      search: { ...theirs, answeredWithEntities: run.serverMemory.answered, maxEntities: run.serverMemory.maxItems, cutShortByBudget: run.cutShort },
      memoryd: { ...ours, answeredWithFacts: run.memoryd.answered },
      blocks: run.perBlock.length,
      blockRatios: { min: blockRatios[0], median: median(blockRatios), max: blockRatios[blockRatios.length - 1] },
      p50Ratio: theirs.p50Ms / ours.p50Ms,
      p99Ratio: theirs.p99Ms / ours.p99Ms,
    };
  } catch (err) {
    // The comparison subject failing is a finding to print, not a reason
    // to throw away memoryd's figures; its target is then n/a.
    const reason = `failed: ${err instanceof Error ? err.message : String(err)}`;
    say(`server-memory: ${reason}`);
    return { scale: scaleName, texts: kept.length, skipped: reason, loadMs: NaN };
  } finally {
    await session?.close();
    await client.close();
    fs.rmSync(memoryFile, { force: true });
  }
}
