// Scores memoryd's search on a relevance set (@memoryd/test-support's
// fixtures: set.json, paraphrase.json, conversations.json): every fact
// goes into a fresh store, every query runs through the store's search,
// and each answer is judged by test-support's scorer, the one the quality
// floors of the tests use. Used by `npm run bench:quality`. With an
// embedder, the search is the daemon's fused one; evaluateVectorOnly
// scores the vector ranking alone.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadRelevanceSet, RECALL_AT, RELEVANCE_SETS, SEARCH_LIMIT, scoreAnswers, scoreRanking, scoreSearch } from '@memoryd/test-support';
import { ensureBenchDeps } from '../bench-deps.mjs';
import { freshSchema } from '../pg-schema.mjs';

/** The relevance sets (@memoryd/test-support's fixtures). */
export const DEFAULT_SET_PATH = RELEVANCE_SETS.set;
export const PARAPHRASE_SET_PATH = RELEVANCE_SETS.paraphrase;
export const CONVERSATIONS_SET_PATH = RELEVANCE_SETS.conversations;
export { RECALL_AT, SEARCH_LIMIT, scoreRanking };

/** A relevance set, loaded and checked. @param {string} setPath */
export const loadSet = (setPath = DEFAULT_SET_PATH) => loadRelevanceSet(setPath);

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
      ? { store: (await ensureBenchDeps(), await import('./fts5-store.mjs')).openFts5Store(), drop: async () => {} }
      : { store: await openStore({ dataDir: path.join(/** @type {string} */ (dir), 'data'), sync: false, logger: silentLogger }), drop: async () => {} };
  // Meaning search as the daemon runs it (embed/embeddings.ts), over the same store.
  const embeddings = options.embedder === undefined
    ? undefined
    : new Embeddings({ embedder: options.embedder, store: store.vectors(), logger: silentLogger });
  try {
    return await scoreSearch(set, {
      add: async (f) => {
        const added = await store.addFact({ agentId: f.agentId, content: f.content, ...(f.tags ? { tags: f.tags } : {}), ...(f.context ? { context: f.context } : {}) });
        if (added.duplicate) throw new Error(`fact ${f.key} was stored as a duplicate of an earlier fact`);
        return added.factId;
      },
      ready: async () => {
        if (embeddings !== undefined) await embedEverything(embeddings);
      },
      search: async (q) => {
        const facts = embeddings === undefined
          ? (await store.searchFacts({ agentId: q.agentId, query: q.query, limit: SEARCH_LIMIT })).facts
          : await embeddings.search(q.agentId, q.query, SEARCH_LIMIT, lexicalSide(daemon, store, q));
        return facts.map((f) => f.id);
      },
    });
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
  const answers = set.queries.map((q, i) =>
    (byAgent.get(q.agentId) ?? [])
      .map((f) => ({ key: f.key, score: cosine(queryVectors[i], f.vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_LIMIT)
      .map((r) => r.key),
  );
  return scoreAnswers(set, answers);
}
