// Scores memoryd's search on the relevance set (set.json next to this
// file): every fact goes into a fresh store, every query runs through
// store.searchFacts, and each answer is judged against the facts a reader
// marked relevant. Used by `npm run bench:quality` (scripts/bench/quality.mjs)
// and by the floor test (packages/daemon/test/search-quality.test.ts), so
// both measure exactly the same thing. With an embedder, the search is the
// daemon's fused one; evaluateVectorOnly scores the vector ranking alone.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshSchema } from '../pg-schema.mjs';

/** The relevance set shipped with the repo. */
export const DEFAULT_SET_PATH = fileURLToPath(new URL('./set.json', import.meta.url));
/** The paraphrase set: every query shares no content word with its facts (check-paraphrase.mjs). */
export const PARAPHRASE_SET_PATH = fileURLToPath(new URL('./paraphrase.json', import.meta.url));
/** The conversational relevance set (make-conversations.mjs). */
export const CONVERSATIONS_SET_PATH = fileURLToPath(new URL('./conversations.json', import.meta.url));

/** Cut-off of recall: an agent reads the first few results, not the tenth. */
export const RECALL_AT = 5;
/** How deep a query's results are fetched; MRR counts a first hit up to here. */
export const SEARCH_LIMIT = 10;

/**
 * Loads and checks a relevance set, so a typo in set.json (an unknown
 * fact key, a judged fact of another agent) fails loudly instead of
 * silently lowering the score.
 * @param {string} setPath
 */
export async function loadSet(setPath = DEFAULT_SET_PATH) {
  const set = JSON.parse(await readFile(setPath, 'utf8'));
  if (!Array.isArray(set.facts) || !Array.isArray(set.queries)) throw new Error(`${setPath}: needs facts and queries arrays`);
  const facts = new Map();
  for (const f of set.facts) {
    if (typeof f.key !== 'string' || typeof f.agentId !== 'string' || typeof f.content !== 'string') {
      throw new Error(`${setPath}: fact ${JSON.stringify(f)} needs key, agentId and content`);
    }
    if (facts.has(f.key)) throw new Error(`${setPath}: duplicate fact key ${f.key}`);
    facts.set(f.key, f);
  }
  const queryIds = new Set();
  for (const q of set.queries) {
    if (queryIds.has(q.id)) throw new Error(`${setPath}: duplicate query id ${q.id}`);
    queryIds.add(q.id);
    if (typeof q.query !== 'string' || typeof q.kind !== 'string' || !Array.isArray(q.relevant) || q.relevant.length === 0) {
      throw new Error(`${setPath}: query ${q.id} needs query, kind and a non-empty relevant list`);
    }
    for (const key of q.relevant) {
      if (facts.get(key)?.agentId !== q.agentId) throw new Error(`${setPath}: query ${q.id} judges ${key}, not a fact of ${q.agentId}`);
    }
  }
  return set;
}

/**
 * Scores one ranked answer.
 * @param {string[]} got fact keys, best first
 * @param {string[]} relevant judged fact keys
 */
export function scoreRanking(got, relevant) {
  const within = (k) => relevant.filter((key) => got.slice(0, k).includes(key)).length / relevant.length;
  const rank = got.slice(0, SEARCH_LIMIT).findIndex((key) => relevant.includes(key));
  return { recallAt5: within(RECALL_AT), recallAt10: within(SEARCH_LIMIT), reciprocalRank: rank === -1 ? 0 : 1 / (rank + 1) };
}

/** @param {Array<{recallAt5: number, reciprocalRank: number}>} rows */
function summarize(rows) {
  const n = rows.length;
  return {
    queries: n,
    recallAt5: n === 0 ? 0 : rows.reduce((s, r) => s + r.recallAt5, 0) / n,
    recallAt10: n === 0 ? 0 : rows.reduce((s, r) => s + r.recallAt10, 0) / n,
    mrr: n === 0 ? 0 : rows.reduce((s, r) => s + r.reciprocalRank, 0) / n,
  };
}

/**
 * Starts meaning search and waits until every fact has its vector.
 * @param {import('@memoryd/daemon').Embeddings} embeddings
 */
async function embedEverything(embeddings) {
  embeddings.start();
  const deadline = Date.now() + 300_000;
  for (;;) {
    const state = embeddings.state();
    if (state.lastError !== undefined) throw new Error(`the embedder failed: ${state.lastError}`);
    if (state.pending === 0 && state.dimensions > 0) return;
    if (Date.now() > deadline) throw new Error(`facts still not embedded after 5 minutes: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A fresh PostgreSQL store in a schema of its own on the server the PG*
 * variables name, and how to drop it.
 * @param {typeof import('@memoryd/daemon')} daemon
 * @returns {Promise<{store: import('@memoryd/daemon').MemoryStore, drop: () => Promise<void>}>}
 */
async function freshPostgresStore(daemon) {
  const { schema, drop } = await freshSchema('memoryd_quality');
  const store = await daemon.openPostgresStore({ connection: { options: `-c search_path=${schema}` }, daemonVersion: daemon.DAEMON_VERSION, logger: daemon.silentLogger });
  return { store, drop };
}

/**
 * The lexical side as `daemon`'s Embeddings.search wants it: the store's
 * whole result (`{facts, fullMatch}`, issue 38's fusion, which exports
 * `fuse`), or its facts alone (the builds before it).
 * @param {typeof import('@memoryd/daemon')} daemon
 * @param {import('@memoryd/daemon').MemoryStore} store
 * @param {{agentId: string, query: string}} q
 */
function lexicalSide(daemon, store, q) {
  const search = (limit) => store.searchFacts({ agentId: q.agentId, query: q.query, limit });
  return typeof daemon.fuse === 'function' ? search : async (limit) => (await search(limit)).facts;
}

/**
 * Runs the relevance set against a fresh store and returns recall@5 and
 * MRR overall and per query kind, and every query's details.
 * @param {{setPath?: string, dir?: string, store?: 'level' | 'postgres' | 'fts5',
 *   embedder?: import('@memoryd/daemon').Embedder, daemon?: typeof import('@memoryd/daemon')}} [options]
 *   `dir`: an empty parent dir for a LevelDB store (the caller removes
 *   it); by default a temp dir is made and removed here. `store`: the
 *   backend (ADR 0027); postgres uses the server the PG* variables name,
 *   in a schema of its own, dropped at the end. `embedder`: meaning search
 *   as the daemon runs it, fused. `daemon`: the daemon module whose store
 *   and search are measured (another build's dist/index.js, for a
 *   baseline); this checkout's @memoryd/daemon by default.
 */
export async function evaluate(options = {}) {
  const set = await loadSet(options.setPath ?? DEFAULT_SET_PATH);
  const daemon = options.daemon ?? (await import('@memoryd/daemon'));
  const { Embeddings, openStore, silentLogger } = daemon;
  const postgres = options.store === 'postgres';
  const fts5 = options.store === 'fts5';
  const ownDir = options.dir === undefined && !postgres && !fts5;
  const dir = postgres || fts5 ? undefined : (options.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'memoryd-quality-'))));
  // sync false: durability is not what is measured, and it keeps the run short.
  const { store, drop } = postgres
    ? await freshPostgresStore(daemon)
    : fts5
      ? { store: (await import('./fts5-store.mjs')).openFts5Store(), drop: async () => {} }
      : { store: await openStore({ dataDir: path.join(/** @type {string} */ (dir), 'data'), sync: false, logger: silentLogger }), drop: async () => {} };
  // Meaning search as the daemon runs it (embed/embeddings.ts), over the same store.
  const embeddings = options.embedder === undefined
    ? undefined
    : new Embeddings({ embedder: options.embedder, store: store.vectors(), logger: silentLogger });
  try {
    const keyById = new Map();
    for (const f of set.facts) {
      const added = await store.addFact({ agentId: f.agentId, content: f.content, ...(f.tags ? { tags: f.tags } : {}), ...(f.context ? { context: f.context } : {}) });
      if (added.duplicate) throw new Error(`fact ${f.key} was stored as a duplicate of an earlier fact`);
      keyById.set(added.factId, f.key);
    }
    if (embeddings !== undefined) await embedEverything(embeddings);
    const queries = [];
    for (const q of set.queries) {
      const facts = embeddings === undefined
        ? (await store.searchFacts({ agentId: q.agentId, query: q.query, limit: SEARCH_LIMIT })).facts
        : await embeddings.search(q.agentId, q.query, SEARCH_LIMIT, lexicalSide(daemon, store, q));
      const got = facts.map((f) => keyById.get(f.id) ?? `?${f.id}`);
      queries.push({ id: q.id, kind: q.kind, agentId: q.agentId, query: q.query, expected: q.relevant, got, ...scoreRanking(got, q.relevant) });
    }
    const kinds = [...new Set(queries.map((q) => q.kind))];
    const byKind = Object.fromEntries(kinds.map((k) => [k, summarize(queries.filter((q) => q.kind === k))]));
    return {
      facts: set.facts.length,
      agents: new Set(set.facts.map((f) => f.agentId)).size,
      ...summarize(queries),
      byKind,
      details: queries,
    };
  } finally {
    await embeddings?.close();
    await store.close();
    await drop();
    if (ownDir && dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** Cosine of two vectors of any length (0 when either is zero). */
function cosine(a, b) {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/**
 * Vectors of texts, in the embedder's batches.
 * @param {import('@memoryd/daemon').Embedder} embedder
 * @param {string[]} texts
 * @param {import('@memoryd/daemon').EmbedPurpose} purpose
 */
async function embedAll(embedder, texts, purpose) {
  const out = [];
  for (let i = 0; i < texts.length; i += embedder.maxBatch) out.push(...(await embedder.embed(texts.slice(i, i + embedder.maxBatch), purpose)));
  return out;
}

/**
 * Meaning alone, as a reference beside the fused search: each query's
 * agent's facts ranked by the exact cosine of the embedder's vectors
 * (float: no store, no int8), best first, scored as {@link evaluate}
 * scores a search, in the same shape. The sweep sets it beside the
 * lexical and the fused search (quality.mjs --sweep).
 * @param {{setPath?: string, embedder: import('@memoryd/daemon').Embedder}} options
 */
export async function evaluateVectorOnly(options) {
  const set = await loadSet(options.setPath ?? DEFAULT_SET_PATH);
  const { embedder } = options;
  const factVectors = await embedAll(embedder, set.facts.map((f) => f.content), 'document');
  const queryVectors = await embedAll(embedder, set.queries.map((q) => q.query), 'query');
  const byAgent = new Map();
  set.facts.forEach((f, i) => {
    const list = byAgent.get(f.agentId) ?? [];
    list.push({ key: f.key, vector: factVectors[i] });
    byAgent.set(f.agentId, list);
  });
  const queries = set.queries.map((q, i) => {
    const v = queryVectors[i];
    const got = (byAgent.get(q.agentId) ?? [])
      .map((f) => ({ key: f.key, score: cosine(v, f.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_LIMIT)
      .map((r) => r.key);
    return { id: q.id, kind: q.kind, agentId: q.agentId, query: q.query, expected: q.relevant, got, ...scoreRanking(got, q.relevant) };
  });
  const kinds = [...new Set(queries.map((q) => q.kind))];
  return {
    facts: set.facts.length,
    agents: byAgent.size,
    ...summarize(queries),
    byKind: Object.fromEntries(kinds.map((k) => [k, summarize(queries.filter((q) => q.kind === k))])),
    details: queries,
  };
}
