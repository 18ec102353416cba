// memoryd against server-memory, timed in alternating blocks of the same
// queries: memoryd's memory.search through DaemonClient, then
// server-memory's search_nodes through the MCP SDK's client, block after
// block. A slow minute of this VM (both servers' p50 moved by a third
// between runs) then falls on both alike, instead of deciding the ratio.

import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { percentile } from '../stats.mjs';

/**
 * Untimed memoryd searches at the start of each of its blocks (~50 ms):
 * the other server's block ran meanwhile and cooled the caches. With 50,
 * memoryd's p50 in the comparison was 1.1-1.8x its standalone p50 of the
 * same run (two runs); with 300 it was not above it.
 */
export const MEMORYD_REWARM = 300;
/** Untimed server-memory searches before its first block (each reads and parses its whole file; its p50 does not move with more). */
export const SERVER_MEMORY_WARMUP = 20;
/** Untimed server-memory searches at the start of each of its blocks. */
export const SERVER_MEMORY_REWARM = 1;
/**
 * Idle time before each block, ms: the other side's processes finish the
 * background work their block left (V8's concurrent marking and sweeping
 * of server-memory's parsed file) before this side is timed, rather than
 * competing with it for the cores.
 */
export const SETTLE_MS = 300;

/**
 * This process's full garbage collection, to run before each block: the
 * bench parses server-memory's answers (up to ~5,600 entities each, twice),
 * and collecting that garbage while memoryd's block runs would charge the
 * bench's own work to memoryd. V8 hands `gc` to contexts made after
 * --expose-gc is set. (The bench's own process only: the daemon sets no
 * V8 flag.)
 */
function exposeGc() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc() after --expose-gc was set');
  return /** @type {() => void} */ (gc);
}

/**
 * A search function: runs one query and resolves with how many items
 * (facts, entities) it answered.
 * @typedef {(text: string) => Promise<number>} SearchFn
 */

/**
 * Times `queries` on both servers in `blocks` alternating blocks (memoryd
 * first in each), one request in flight. Each side's untimed re-warm
 * queries come from `warmup`, never from `queries`. Once server-memory
 * has spent `budgetMs` searching, the run stops after the current block:
 * both sides have then timed the same queries.
 * @param {{memoryd: SearchFn, serverMemory: SearchFn, queries: {text: string}[], warmup: {text: string}[],
 *   blocks: number, budgetMs: number, progress: (line: string) => void}} options
 */
export async function timeInterleaved({ memoryd, serverMemory, queries, warmup, blocks, budgetMs, progress }) {
  if (warmup.length === 0) throw new Error('the interleaved comparison needs warm-up queries');
  // Taken here, not at import: a run without server-memory sets no V8 flag.
  const collectGarbage = exposeGc();
  const warm = (i) => /** @type {{text: string}} */ (warmup[i % warmup.length]).text;
  let warmed = 0;
  for (let i = 0; i < SERVER_MEMORY_WARMUP; i++) await serverMemory(warm(warmed++));
  const sides = {
    memoryd: { samplesNs: /** @type {number[]} */ ([]), answered: 0, maxItems: 0 },
    serverMemory: { samplesNs: /** @type {number[]} */ ([]), answered: 0, maxItems: 0 },
  };
  /** @type {{from: number, to: number, memorydP50Ms: number, serverMemoryP50Ms: number}[]} */
  const perBlock = [];
  const size = Math.ceil(queries.length / blocks);
  let serverMemoryMs = 0;
  let cutShort = false;
  for (let from = 0; from < queries.length; from += size) {
    if (serverMemoryMs > budgetMs) {
      cutShort = true;
      break;
    }
    const block = queries.slice(from, from + size);
    collectGarbage();
    await sleep(SETTLE_MS);
    for (let i = 0; i < MEMORYD_REWARM; i++) await memoryd(warm(warmed++));
    const mine = await timeBlock(memoryd, block, sides.memoryd);
    collectGarbage();
    await sleep(SETTLE_MS);
    const started = performance.now();
    for (let i = 0; i < SERVER_MEMORY_REWARM; i++) await serverMemory(warm(warmed++));
    const theirs = await timeBlock(serverMemory, block, sides.serverMemory);
    serverMemoryMs += performance.now() - started;
    const entry = { from, to: from + block.length, memorydP50Ms: p50Ms(mine), serverMemoryP50Ms: p50Ms(theirs) };
    perBlock.push(entry);
    progress(`compared queries ${from + 1}-${entry.to}: memoryd p50 ${entry.memorydP50Ms.toFixed(3)} ms, ` +
      `server-memory p50 ${entry.serverMemoryP50Ms.toFixed(3)} ms`);
  }
  return { ...sides, perBlock, cutShort };
}

/**
 * Runs `block` one at a time on `search`, timing each; adds to `into`.
 * @param {SearchFn} search
 * @param {{text: string}[]} block
 * @param {{samplesNs: number[], answered: number, maxItems: number}} into
 * @returns {Promise<number[]>} this block's samples, ns
 */
async function timeBlock(search, block, into) {
  const first = into.samplesNs.length;
  for (const query of block) {
    const t0 = process.hrtime.bigint();
    const items = await search(query.text);
    into.samplesNs.push(Number(process.hrtime.bigint() - t0));
    if (items > 0) into.answered++;
    into.maxItems = Math.max(into.maxItems, items);
  }
  return into.samplesNs.slice(first);
}

/** The p50 of samples in ns, in ms (nearest rank, as the bench's other figures). */
function p50Ms(samplesNs) {
  return percentile(Float64Array.from(samplesNs).sort(), 50) / 1e6;
}
