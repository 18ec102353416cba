import { firstLine } from '../errors.js';
import { CallSignal } from './call-signal.js';
import type { EmbedHealth } from './embed-health.js';
import { type Embedder, EmbedderError } from './embedder.js';

/** A search waits this long for its query's vector, then answers lexically. */
export const QUERY_TIMEOUT_MS = 2_000;
/** After a query's vector failed, searches are lexical for this long without asking. */
export const QUERY_PAUSE_MS = 10_000;
/** Query vectors kept (agents repeat their questions). */
const QUERY_CACHE = 256;

/**
 * The vectors of search queries: asked for with a bound, so a provider that
 * is slow or down costs a search at most {@link QUERY_TIMEOUT_MS}; after a
 * failure searches stay lexical for {@link QUERY_PAUSE_MS}; the last
 * queries' vectors are kept.
 */
export class QueryVectors {
  readonly #embedder: Embedder;
  readonly #health: EmbedHealth;
  readonly #stop: AbortSignal;
  readonly #cache = new Map<string, Float32Array>();
  #pausedUntil = 0;

  /** `stop` aborts every call in flight when the daemon stops. */
  constructor(embedder: Embedder, health: EmbedHealth, stop: AbortSignal) {
    this.#embedder = embedder;
    this.#health = health;
    this.#stop = stop;
  }

  /** The query's vector, or undefined (the search is lexical) when it cannot be had in time. */
  async get(query: string, dimensions: number): Promise<Float32Array | undefined> {
    const cached = this.#cache.get(query);
    if (cached !== undefined) {
      this.#cache.delete(query);
      this.#cache.set(query, cached);
      return cached;
    }
    if (Date.now() < this.#pausedUntil || this.#health.stopped || this.#stop.aborted) return undefined;
    const call = new CallSignal(this.#stop, QUERY_TIMEOUT_MS);
    try {
      const [vector] = await this.#embedder.embed([query], 'query', call.signal);
      if (vector === undefined || vector.length !== dimensions) {
        throw new EmbedderError(`the embedder answered a query vector of ${vector?.length ?? 0} dimensions, the stored vectors have ${dimensions}`, { retryable: false });
      }
      this.#health.succeeded();
      this.#pausedUntil = 0;
      this.#cache.set(query, vector);
      if (this.#cache.size > QUERY_CACHE) this.#cache.delete(this.#cache.keys().next().value!);
      return vector;
    } catch (err) {
      if (this.#stop.aborted) return undefined;
      // Whatever a provider says of its cancelled call, the bound is what ran out.
      this.#health.failed(`search: ${call.timedOut ? `the embedder did not embed a query within ${QUERY_TIMEOUT_MS} ms` : firstLine(err)}`);
      this.#pausedUntil = Date.now() + QUERY_PAUSE_MS;
      return undefined;
    } finally {
      call.dispose();
    }
  }

  /** Forgets every vector (a rebuild: the space's vectors may have changed). */
  clear(): void {
    this.#cache.clear();
    this.#pausedUntil = 0;
  }
}
