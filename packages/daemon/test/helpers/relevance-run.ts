import { join } from 'node:path';
import { type Embedder, Embeddings, openStore, silentLogger } from '@memoryd/daemon';
import { loadRelevanceSet, type RelevanceResult, SEARCH_LIMIT, scoreSearch } from '@memoryd/test-support';

/** Bound on meaning search embedding a relevance set's facts. */
const EMBED_BOUND_MS = 300_000;

/** Waits until meaning search has embedded every fact; fails on the embedder's error or past the bound. */
async function embedEverything(embeddings: Embeddings): Promise<void> {
  embeddings.start();
  const deadline = Date.now() + EMBED_BOUND_MS;
  for (;;) {
    const state = embeddings.state();
    if (state.lastError !== undefined) throw new Error(`the embedder failed: ${state.lastError}`);
    if (state.pending === 0 && state.dimensions > 0) return;
    if (Date.now() > deadline) throw new Error(`facts still not embedded after ${EMBED_BOUND_MS / 1000} s: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Scores a relevance set on a fresh LevelDB store in `dir` (an empty dir
 * the caller removes), by @memoryd/test-support's scorer, the one
 * `npm run bench:quality` uses: lexical search, or with `embedder` the
 * daemon's fused search.
 */
export async function scoreOnLevel(setPath: string, dir: string, embedder?: Embedder): Promise<RelevanceResult> {
  const set = await loadRelevanceSet(setPath);
  // sync false: durability is not what is measured, and it keeps the run short.
  const store = await openStore({ dataDir: join(dir, 'data'), sync: false, logger: silentLogger });
  const embeddings = embedder === undefined ? undefined : new Embeddings({ embedder, store: store.vectors(), logger: silentLogger });
  try {
    return await scoreSearch(set, {
      add: async (f) => (await store.addFact({ agentId: f.agentId, content: f.content, ...(f.tags ? { tags: f.tags } : {}), ...(f.context ? { context: f.context } : {}) })).factId,
      ready: async () => {
        if (embeddings !== undefined) await embedEverything(embeddings);
      },
      search: async (q) => {
        const lexical = (limit: number) => store.searchFacts({ agentId: q.agentId, query: q.query, limit });
        const facts = embeddings === undefined ? (await lexical(SEARCH_LIMIT)).facts : await embeddings.search(q.agentId, q.query, SEARCH_LIMIT, lexical);
        return facts.map((f) => f.id);
      },
    });
  } finally {
    await embeddings?.close();
    await store.close();
  }
}
