// The bench's scales and the stream of admin.import records for one of
// them: which agent each fact belongs to, its id (ULID) and createdAt.
// Agents' facts are interleaved in time, as a user's agents write them, and
// ids increase strictly with createdAt across the whole stream.

import { FactTextGenerator, WordStock, ZipfTextGenerator } from './corpus.mjs';
import { deriveSeed, mulberry32 } from './random.mjs';
import { drawTags } from './filters.mjs';
import { ulid } from './ulid.mjs';

/** The agent every scale searches. */
export const SEARCHED_AGENT = 'bench-main';

/**
 * A scale: the searched agent's fact count, plus `others` agents of
 * `perOther` facts each (the 1M scale: 100 × 9,000 + 100,000), of the
 * `text` corpus (sentences, corpus.mjs FactTextGenerator) or the `zipf`
 * one (issue 15: 5,000 words, plain Zipf, ZipfTextGenerator).
 * @typedef {{name: string, corpus: 'text' | 'zipf', searched: number, others: number, perOther: number, total: number}} Scale
 */

/** @type {Record<string, Scale>} */
export const SCALES = {
  '10k': { name: '10k', corpus: 'text', searched: 10_000, others: 0, perOther: 0, total: 10_000 },
  '100k': { name: '100k', corpus: 'text', searched: 100_000, others: 0, perOther: 0, total: 100_000 },
  '1m': { name: '1m', corpus: 'text', searched: 100_000, others: 100, perOther: 9_000, total: 1_000_000 },
  'zipf-100k': { name: 'zipf-100k', corpus: 'zipf', searched: 100_000, others: 0, perOther: 0, total: 100_000 },
  'zipf-1m': { name: 'zipf-1m', corpus: 'zipf', searched: 1_000_000, others: 0, perOther: 0, total: 1_000_000 },
};

/** The id of the i-th other agent: bench-000 … bench-099. */
export const otherAgentId = (i) => `bench-${String(i).padStart(3, '0')}`;

/** createdAt of the first fact: the stream then spans one year, as a year of an agent's use. */
const START_MS = Date.UTC(2025, 0, 1);
const SPAN_MS = 365 * 24 * 3600 * 1000;

/** The time between two records of a scale's stream. @param {Scale} scale */
function stepOf(scale) {
  return Math.max(1, Math.floor(SPAN_MS / scale.total));
}

/**
 * The createdAt of the record at `share` of the scale's stream (0 the
 * first, 0.9 the first of the newest tenth), as RFC 3339.
 * @param {Scale} scale
 * @param {number} share
 */
export function timeAtShare(scale, share) {
  return new Date(START_MS + Math.floor(share * scale.total) * stepOf(scale)).toISOString();
}

/**
 * A fact as the bench keeps it to draw queries from and to feed
 * server-memory: its id and text.
 * @typedef {{id: string, content: string}} KeptFact
 */

/**
 * Yields the scale's facts as admin.import records, `batchSize` at a time.
 * The searched agent's facts are also pushed to `kept` (for the queries and
 * for server-memory), so the caller never holds the whole corpus.
 * @param {Scale} scale
 * With `tags` (bench:search --filters), Zipf facts carry tags drawn from a
 * skewed set (filters.mjs).
 * @param {{seed: number, batchSize: number, kept: KeptFact[], tags?: boolean}} options
 * @returns {Generator<object[]>}
 */
export function* importBatches(scale, { seed, batchSize, kept, tags = false }) {
  const stock = scale.corpus === 'text' ? new WordStock(seed) : undefined;
  /** @param {string} agentId */
  const generator = (agentId) => (stock === undefined ? new ZipfTextGenerator(seed, agentId, tags ? drawTags : undefined) : new FactTextGenerator(stock, seed, agentId));
  const searched = generator(SEARCHED_AGENT);
  const others = Array.from({ length: scale.others }, (_, i) => generator(otherAgentId(i)));
  const idRand = mulberry32(deriveSeed(seed, `ids:${scale.name}`));
  // Strictly increasing times give strictly increasing ULIDs.
  const stepMs = stepOf(scale);
  let searchedSoFar = 0;
  let nextOther = 0;
  let batch = [];
  for (let i = 0; i < scale.total; i++) {
    // Spread the searched agent's facts evenly through the stream
    // (Bresenham): record i is its when the running share steps up.
    const isSearched = Math.floor(((i + 1) * scale.searched) / scale.total) > searchedSoFar;
    const agentId = isSearched ? SEARCHED_AGENT : otherAgentId(nextOther);
    const source = isSearched ? searched : /** @type {FactTextGenerator} */ (others[nextOther]);
    if (isSearched) searchedSoFar++;
    else nextOther = (nextOther + 1) % scale.others;
    const timeMs = START_MS + i * stepMs;
    const id = ulid(timeMs, idRand);
    const { content, tags } = /** @type {{content: string, tags?: string[]}} */ (source.next());
    const record = { type: 'fact', agentId, id, content, createdAt: new Date(timeMs).toISOString() };
    if (tags !== undefined) record.tags = tags;
    if (isSearched) kept.push({ id, content });
    batch.push(record);
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
