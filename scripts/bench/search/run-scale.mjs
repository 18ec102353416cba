// One scale of the search bench, start to end, every server on a fresh
// data dir of its own: seed each (admin.import, timed), time the same
// queries on all of them interleaved, restart them all and time the first
// queries again, reading each one's RSS on the way.

import { percentile } from '../stats.mjs';
import { SEARCHED_AGENT, importBatches, timeAtShare } from './dataset.mjs';
import { benchFilters } from './filters.mjs';
import { drawQueries } from './queries.mjs';
import { rssBytes } from './subjects.mjs';

/** Records per admin.import call: the protocol's maximum (Limits.importMaxRecords). */
const IMPORT_BATCH = 1_000;

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

/** The classes of query, by the share of the agent's facts holding the query's most common word. */
export const CLASSES = [
  { name: 'A', min: 0.5, about: '>= 50%' },
  { name: 'B', min: 0.1, about: '10-50%' },
  { name: 'C', min: 0.01, about: '1-10%' },
  { name: 'D', min: 0, about: '< 1%' },
];

/**
 * Each query's class (CLASSES' name) by the document frequency of its
 * most common word (as written, lower-cased: close to the daemon's terms).
 * @param {{content: string}[]} facts the searched agent's
 * @param {{text: string}[]} queries
 * @returns {string[]}
 */
export function classesOf(facts, queries) {
  const df = new Map();
  for (const f of facts) for (const w of new Set(f.content.toLowerCase().split(/[^\p{L}\p{N}_]+/u))) if (w !== '') df.set(w, (df.get(w) ?? 0) + 1);
  return queries.map((q) => {
    const words = q.text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w !== '');
    const share = Math.max(0, ...words.map((w) => (df.get(w) ?? 0) / facts.length));
    return /** @type {{name: string}} */ (CLASSES.find((c) => share >= c.min)).name;
  });
}

/**
 * Latency overall and by class.
 * @param {number[]} samplesNs in the order of the queries
 * @param {string[]} classes each query's
 */
function figures(samplesNs, classes) {
  /** @type {Record<string, number[]>} */
  const groups = Object.fromEntries(CLASSES.map((c) => [c.name, []]));
  samplesNs.forEach((ns, i) => groups[/** @type {string} */ (classes[i])]?.push(ns));
  return { all: latency(samplesNs), byClass: Object.fromEntries(Object.entries(groups).map(([name, s]) => [name, latency(s)])) };
}

/**
 * Runs one scale on `servers` and returns every server's figures.
 * @param {import('./dataset.mjs').Scale} scale
 * @param {import('./subjects.mjs').Server[]} servers
 * @param {ReturnType<typeof import('./subjects.mjs').startSearchTimer>} timer
 * @param {{seed: number, queries: number, restartQueries: number, limit: number, inFlight: number, filters?: boolean}} opts
 * @param {(line: string) => void} progress
 */
export async function runScale(scale, servers, timer, opts, progress) {
  const say = (line) => progress(`${scale.name}: ${line}`);
  const rows = servers.map((s) => ({ label: s.label, kind: s.kind, seed: undefined, rss: {}, search: undefined, restart: undefined, withFacts: undefined, filters: undefined }));
  /** @type {import('./dataset.mjs').KeptFact[]} */
  let kept = [];
  for (const [i, server] of servers.entries()) {
    await server.start();
    if (!server.seeded) continue;
    /** @type {import('./dataset.mjs').KeptFact[]} */
    const mine = [];
    say(`${server.label}: seeding ${scale.total.toLocaleString('en-US')} facts with admin.import (${IMPORT_BATCH} a call, ${opts.inFlight} in flight)`);
    const load = await server.seed(importBatches(scale, { seed: opts.seed, batchSize: IMPORT_BATCH, kept: mine, tags: opts.filters === true }), scale.total, opts.inFlight, say);
    kept = mine;
    const rate = load.imported / (load.ms / 1000);
    rows[i].seed = { ms: load.ms, factsPerSecond: rate };
    rows[i].rss.afterSeed = rssBytes(server.pid());
    say(`${server.label}: seeded in ${(load.ms / 1000).toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')} facts/s), RSS ${(rows[i].rss.afterSeed / 1e6).toFixed(1)} MB`);
  }
  if (kept.length === 0) throw new Error('no server was seeded: the queries come from the facts seeded');
  // Meaning search embeds in the background: its searches are timed once every fact has its vector.
  for (const server of servers) if (server.embeddings) await server.waitEmbedded(say);
  const queries = drawQueries(kept, opts.queries, opts.seed);
  const classes = classesOf(kept, queries);
  kept = [];
  const texts = queries.map((q) => q.text);

  say(`searching: ${texts.length} queries, interleaved over ${servers.map((s) => s.label).join(', ')}, one request in flight`);
  const searched = await timer.time(servers, SEARCHED_AGENT, texts, opts.limit);
  servers.forEach((server, i) => {
    rows[i].search = figures(/** @type {number[]} */ (searched.samplesNs[i]), classes);
    rows[i].withFacts = /** @type {number} */ (searched.withFacts[i]) / texts.length;
    rows[i].rss.afterSearch = rssBytes(server.pid());
    const all = rows[i].search.all;
    say(`${server.label}: p50 ${all.p50Ms.toFixed(3)} ms, p99 ${all.p99Ms.toFixed(3)} ms`);
  });

  if (opts.filters === true) await timeFilters(scale, servers, rows, timer, texts, opts.limit, say);

  say('restarting every server (stopped one by one, started together), then the first queries again');
  for (const server of servers) await server.stop();
  await Promise.all(servers.map((s) => s.start()));
  const first = texts.slice(0, opts.restartQueries);
  const again = await timer.time(servers, SEARCHED_AGENT, first, opts.limit);
  servers.forEach((server, i) => {
    const samples = /** @type {number[]} */ (again.samplesNs[i]);
    rows[i].restart = { firstMs: /** @type {number} */ (samples[0]) / 1e6, ...figures(samples, classes.slice(0, first.length)) };
    rows[i].rss.afterRestart = rssBytes(server.pid());
    say(`${server.label}: after the restart, first ${rows[i].restart.firstMs.toFixed(1)} ms, p99 ${rows[i].restart.all.p99Ms.toFixed(3)} ms, RSS ${(rows[i].rss.afterRestart / 1e6).toFixed(1)} MB`);
  });
  for (const server of servers) await server.stop();
  const classCounts = Object.fromEntries(CLASSES.map((c) => [c.name, classes.filter((k) => k === c.name).length]));
  return { scale: scale.name, facts: scale.total, searchedFacts: scale.searched, queries: texts.length, restartQueries: first.length, classCounts, servers: rows };
}

/**
 * bench:search --filters: the same queries again, unfiltered and under
 * each filter (filters.mjs), on every server but the echo floor (whose
 * answer is fixed), all interleaved in one pass: query i goes to every
 * (server, filter) pair in turn, so that a filtered search and the
 * unfiltered one it is judged against meet the same moments of the
 * machine. Each server's figures go to its row's `filters`, by filter
 * name, with the unfiltered ones of this pass under `none`.
 * @param {import('./dataset.mjs').Scale} scale
 * @param {import('./subjects.mjs').Server[]} servers
 * @param {any[]} rows
 * @param {ReturnType<typeof import('./subjects.mjs').startSearchTimer>} timer
 * @param {string[]} texts
 * @param {number} limit
 * @param {(line: string) => void} say
 */
async function timeFilters(scale, servers, rows, timer, texts, limit, say) {
  const timed = servers.filter((s) => s.kind !== 'echo');
  const variants = [{ name: 'none', about: 'no filter, in the same pass', params: undefined }, ...benchFilters(timeAtShare(scale, 0.9))];
  const pairs = timed.flatMap((server) => variants.map((v) => ({ server, v })));
  say(`filters: ${texts.length} queries, interleaved over ${timed.map((s) => s.label).join(', ')}, each unfiltered and under ${variants.length - 1} filters`);
  const r = await timer.time(pairs.map((p) => p.server), SEARCHED_AGENT, texts, limit, pairs.map((p) => p.v.params));
  pairs.forEach(({ server, v }, k) => {
    const row = rows[servers.indexOf(server)];
    row.filters ??= {};
    row.filters[v.name] = { about: v.about, ...latency(/** @type {number[]} */ (r.samplesNs[k])), withFacts: /** @type {number} */ (r.withFacts[k]) / texts.length };
    const fig = row.filters[v.name];
    say(`${server.label}: ${v.name} p50 ${fig.p50Ms.toFixed(3)} ms, p99 ${fig.p99Ms.toFixed(3)} ms, ${(100 * fig.withFacts).toFixed(0)}% of queries found facts`);
  });
}
