import { type Fact, Limits } from '@memoryd/protocol';
import { firstLine } from '../errors.js';
import type { Logger } from '../logger.js';
import type { FactChange, StoredVector, VectorStore } from '../store/vector-store.js';
import { type Embedder, EmbedderError } from './embedder.js';
import { type FusionMethod, fuseRrf, fuseWeighted } from './fusion.js';
import { VectorIndex } from './vector-index.js';

/** Meaning search's state, as `daemon.status.embeddings` reports it. */
export interface EmbeddingsState {
  embedder: string;
  model: string;
  dimensions: number;
  pending: number;
  lastError?: string;
}

/** How a search is fused, and how wide each side looks (ADR 0034). */
export interface FusionSettings {
  method: FusionMethod;
  /** weighted: the cosine's share of the fused score. */
  vectorWeight: number;
  /** Candidates each side gives: at least this many, and at least the search's limit. */
  candidates: number;
}

/** The fusion ADR 0034 chose by measurement. */
export const DEFAULT_FUSION: FusionSettings = { method: 'weighted', vectorWeight: 0.5, candidates: 30 };

export interface EmbeddingsOptions {
  embedder: Embedder;
  store: VectorStore;
  logger: Logger;
  fusion?: FusionSettings;
}

/** A search waits this long for its query's vector, then answers lexically. */
const QUERY_TIMEOUT_MS = 2_000;
/** After a query's vector failed, searches are lexical for this long without asking (the queue's success ends it sooner). */
const QUERY_PAUSE_MS = 10_000;
/** First wait after the embedder failed the queue; doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/**
 * A queue shorter than a batch waits this long for more before it is
 * embedded: one call and one write for a burst of adds, not one each.
 */
const GATHER_MS = 100;
/** Query vectors kept (agents repeat their questions). */
const QUERY_CACHE = 256;

/** A sleep that {@link Wakeup.wake} cuts short. */
class Wakeup {
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
      if (Number.isFinite(ms)) this.#timer = setTimeout(resolve, ms);
    }).finally(() => {
      clearTimeout(this.#timer);
      this.#wake = undefined;
    });
  }

  wake(): void {
    this.#wake?.();
  }
}

/**
 * Meaning search (docs/embeddings.md): keeps every current fact's vector
 * of the embedder's space, in the store and in memory, and fuses a vector
 * ranking into `memory.search`.
 *
 * What is still to embed is found from the store: at start every agent's
 * vectors are loaded and its facts without one queued, and then every
 * committed change queues or drops a fact. One worker embeds the queue in
 * batches, off every request's path; while the embedder fails it backs
 * off and says why in `lastError`, and searches answer lexically for the
 * facts not embedded. Nothing here fails a write or a search.
 */
export class Embeddings {
  readonly #embedder: Embedder;
  readonly #store: VectorStore;
  readonly #log: Logger;
  readonly #fusion: FusionSettings;
  readonly #indexes = new Map<string, VectorIndex>();
  /** Facts to embed, by agent (insertion order: oldest queued first). */
  readonly #pending = new Map<string, Set<string>>();
  #pendingCount = 0;
  /** Agents being loaded, with the facts that left them meanwhile (a load may have read them before they left). */
  readonly #loading = new Map<string, Set<string>>();
  /** Agents whose vectors are loaded: their changes apply to their index. */
  readonly #loaded = new Set<string>();
  /** Agents the start's load has still to load: their changes wait for it. */
  readonly #toLoad = new Set<string>();
  /** Current facts of the agents still to load: pending until their load says otherwise. */
  #unloaded = 0;
  #dimensions = 0;
  #lastError: string | undefined;
  #queryPausedUntil = 0;
  readonly #queryCache = new Map<string, Float32Array>();
  readonly #wakeup = new Wakeup();
  #closed = false;
  #worker: Promise<void> | undefined;
  /** Bumped by a rebuild: work begun before it is dropped. */
  #generation = 0;

  constructor(options: EmbeddingsOptions) {
    this.#embedder = options.embedder;
    this.#store = options.store;
    this.#log = options.logger;
    this.#fusion = options.fusion ?? DEFAULT_FUSION;
    this.#store.onFactChanges((changes) => this.#changed(changes));
    this.#store.onResync(() => void this.#resync());
  }

  /** Starts loading the stored vectors and embedding what lacks one, in the background. */
  start(): void {
    this.#worker ??= this.#run().catch((err: unknown) => this.#log.error('meaning search stopped', { err }));
  }

  /** `daemon.status.embeddings`. */
  state(): EmbeddingsState {
    const state: EmbeddingsState = {
      embedder: this.#embedder.kind,
      model: this.#embedder.model,
      dimensions: this.#dimensions,
      pending: this.#pendingCount + this.#unloaded,
    };
    if (this.#lastError !== undefined) state.lastError = this.#lastError;
    return state;
  }

  /**
   * Drops every stored vector and queues every current fact again
   * (`admin.reembed`); answers how many facts are queued.
   */
  async rebuild(): Promise<number> {
    this.#generation++;
    await this.#store.dropVectors();
    this.#indexes.clear();
    this.#pending.clear();
    this.#pendingCount = 0;
    this.#loaded.clear();
    this.#dimensions = 0;
    this.#queryCache.clear();
    const agents = await this.#store.agentsWithFacts();
    let queued = 0;
    for (const { agentId } of agents) queued += await this.#load(agentId, this.#generation);
    this.#wakeup.wake();
    return queued;
  }

  /**
   * A search fused with the vector ranking. `lexical(n)` gives the
   * lexical ranking's n best; when there is no vector to use (none loaded
   * for the agent, or the query's could not be had in time) the answer is
   * the lexical one.
   */
  async search(agentId: string, query: string, limit: number | undefined, lexical: (n: number) => Promise<Fact[]>): Promise<Fact[]> {
    const want = limit ?? Limits.limitDefault;
    const index = this.#indexes.get(agentId);
    if (index === undefined || index.size === 0) return lexical(want);
    const n = Math.max(want, this.#fusion.candidates);
    // The query's vector is asked for first: the lexical search runs while it is on its way.
    const asked = this.#queryVector(query, index.dimensions);
    const [lex, queryVector] = await Promise.all([lexical(n), asked]);
    if (queryVector === undefined) return lex.slice(0, want);
    const hits = index.search(queryVector, n);
    const byId = new Map(lex.map((f) => [f.id, f]));
    const lexRanked = lex.map((f) => ({ id: f.id, score: f.score ?? 0 }));
    let fused;
    if (this.#fusion.method === 'rrf') {
      fused = fuseRrf(lexRanked, hits);
    } else {
      const cosines = index.similarities(queryVector, lex.map((f) => f.id));
      for (const h of hits) cosines.set(h.id, h.score);
      fused = fuseWeighted(lexRanked, cosines, this.#fusion.vectorWeight);
    }
    // Read only what makes the answer: the facts the lexical side did not return, a limit's worth
    // at a time (one not current any more, its removal on its way to the index, is left out).
    const out: Fact[] = [];
    for (let from = 0; out.length < want && from < fused.length; ) {
      const next = fused.slice(from, from + want - out.length);
      from += next.length;
      const unread = next.filter((f) => !byId.has(f.id)).map((f) => f.id);
      if (unread.length > 0) for (const fact of await this.#store.readFacts(agentId, unread)) byId.set(fact.id, fact);
      for (const f of next) {
        const fact = byId.get(f.id);
        if (fact !== undefined) out.push({ ...fact, score: f.score });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeup.wake();
    await this.#worker;
    await this.#embedder.close();
  }

  /** The query's vector, or undefined (and the search is lexical) when it cannot be had in time. */
  async #queryVector(query: string, dimensions: number): Promise<Float32Array | undefined> {
    const cached = this.#queryCache.get(query);
    if (cached !== undefined) {
      this.#queryCache.delete(query);
      this.#queryCache.set(query, cached);
      return cached;
    }
    if (Date.now() < this.#queryPausedUntil) return undefined;
    const bound = AbortSignal.timeout(QUERY_TIMEOUT_MS);
    try {
      const [vector] = await this.#embedder.embed([query], 'query', bound);
      if (vector === undefined || vector.length !== dimensions) {
        throw new EmbedderError(`the embedder answered a query vector of ${vector?.length ?? 0} dimensions, the stored vectors have ${dimensions}`, { retryable: false });
      }
      this.#queryCache.set(query, vector);
      if (this.#queryCache.size > QUERY_CACHE) this.#queryCache.delete(this.#queryCache.keys().next().value!);
      return vector;
    } catch (err) {
      // Whatever a provider says of its cancelled call, the bound is what ran out.
      const message = bound.aborted ? `the embedder did not embed a query within ${QUERY_TIMEOUT_MS} ms` : firstLine(err);
      this.#failed(`search: ${message}`);
      this.#queryPausedUntil = Date.now() + QUERY_PAUSE_MS;
      return undefined;
    }
  }

  #failed(message: string): void {
    if (this.#lastError !== message) this.#log.warn('the embedder failed; searches are lexical for what it has not embedded', { cause: message });
    this.#lastError = message;
  }

  #succeeded(): void {
    if (this.#lastError !== undefined) this.#log.info('the embedder answers again', { after: this.#lastError });
    this.#lastError = undefined;
    this.#queryPausedUntil = 0;
  }

  /** A committed change: a new fact is queued, a fact gone leaves its index and the queue. */
  #changed(changes: readonly FactChange[]): void {
    let queued = false;
    for (const c of changes) {
      if (c.sign < 0) {
        this.#loading.get(c.agentId)?.add(c.id);
        this.#indexes.get(c.agentId)?.delete(c.id);
        this.#unqueue(c.agentId, c.id);
      } else if (this.#loaded.has(c.agentId) || this.#loading.has(c.agentId)) {
        this.#loading.get(c.agentId)?.delete(c.id);
        if (!this.#indexes.get(c.agentId)?.has(c.id)) queued = this.#queue(c.agentId, c.id) || queued;
      } else if (this.#worker !== undefined && !this.#toLoad.has(c.agentId)) {
        // An agent new to this daemon: it has nothing stored yet, so everything it has is to embed.
        this.#loaded.add(c.agentId);
        queued = this.#queue(c.agentId, c.id) || queued;
      }
    }
    // An idle worker starts at once (then gathers); a gathering one is cut short by a full batch.
    if (queued && (this.#pendingCount === 1 || this.#pendingCount >= this.#embedder.maxBatch)) this.#wakeup.wake();
  }

  #queue(agentId: string, id: string): boolean {
    let set = this.#pending.get(agentId);
    if (set === undefined) this.#pending.set(agentId, (set = new Set()));
    if (set.has(id)) return false;
    set.add(id);
    this.#pendingCount++;
    return true;
  }

  #unqueue(agentId: string, id: string): void {
    const set = this.#pending.get(agentId);
    if (set?.delete(id)) {
      this.#pendingCount--;
      if (set.size === 0) this.#pending.delete(agentId);
    }
  }

  /**
   * Changes went unheard (another daemon's, on a shared store): every
   * agent loaded is loaded again from the store, one at a time. Meanwhile
   * that agent's searches are lexical.
   */
  async #resync(): Promise<void> {
    if (this.#closed) return;
    const generation = this.#generation;
    const agents = [...this.#loaded];
    this.#log.info('reloading the vectors: changes of other daemons may have gone unheard', { agents: agents.length });
    for (const agentId of agents) {
      if (this.#closed || generation !== this.#generation) return;
      this.#indexes.delete(agentId);
      this.#loaded.delete(agentId);
      try {
        await this.#load(agentId, generation);
      } catch (err) {
        this.#failed(`loading the vectors of agent ${agentId}: ${firstLine(err)}`);
      }
    }
    if (this.#pendingCount > 0) this.#wakeup.wake();
  }

  /** Loads one agent's stored vectors into its index and queues its facts without one; returns how many. */
  async #load(agentId: string, generation: number): Promise<number> {
    const gone = new Set<string>();
    this.#loading.set(agentId, gone);
    try {
      const stale: string[] = [];
      const missing = await this.#store.loadVectors(this.#embedder.space, agentId, (page) => {
        if (generation === this.#generation) this.#index(agentId, page, stale);
      });
      if (generation !== this.#generation) return 0;
      for (const id of gone) this.#indexes.get(agentId)?.delete(id);
      this.#loaded.add(agentId);
      let queued = 0;
      for (const id of [...missing, ...stale]) if (!gone.has(id) && this.#queue(agentId, id)) queued++;
      return queued;
    } finally {
      this.#loading.delete(agentId);
    }
  }

  /** Adds vectors to an agent's index; one of another length than the space's is put in `stale`, to embed again. */
  #index(agentId: string, vectors: readonly StoredVector[], stale: string[]): void {
    for (const v of vectors) {
      if (this.#dimensions === 0) this.#dimensions = v.vector.length;
      if (v.vector.length !== this.#dimensions) {
        stale.push(v.id);
        continue;
      }
      let index = this.#indexes.get(agentId);
      if (index === undefined) this.#indexes.set(agentId, (index = new VectorIndex(this.#dimensions)));
      index.set(v.id, v.vector);
    }
  }

  /** The worker: loads every agent, then embeds the queue as it fills, until close. */
  async #run(): Promise<void> {
    const generation = this.#generation;
    const started = Date.now();
    let agents: Array<{ agentId: string; facts: number }> = [];
    for (let backoff = FIRST_BACKOFF_MS; !this.#closed; backoff = Math.min(2 * backoff, MAX_BACKOFF_MS)) {
      try {
        agents = await this.#store.agentsWithFacts();
        break;
      } catch (err) {
        this.#failed(`reading the store: ${firstLine(err)}`);
        await this.#wakeup.sleep(backoff);
      }
    }
    for (const { agentId, facts } of agents) {
      if (this.#loaded.has(agentId)) continue;
      this.#toLoad.add(agentId);
      this.#unloaded += facts;
    }
    for (const { agentId, facts } of agents) {
      if (this.#closed || generation !== this.#generation) break;
      if (!this.#toLoad.has(agentId)) continue;
      try {
        await this.#load(agentId, generation);
      } catch (err) {
        // Its facts stay unsearchable by meaning until a rebuild or restart; the others go on.
        this.#failed(`loading the vectors of agent ${agentId}: ${firstLine(err)}`);
      } finally {
        this.#toLoad.delete(agentId);
        this.#unloaded -= facts;
      }
    }
    this.#toLoad.clear();
    this.#unloaded = 0;
    this.#log.info('meaning search loaded its vectors', {
      agents: agents.length,
      vectors: [...this.#indexes.values()].reduce((n, i) => n + i.size, 0),
      pending: this.#pendingCount + this.#unloaded,
      ms: Date.now() - started,
    });
    let backoff = FIRST_BACKOFF_MS;
    while (!this.#closed) {
      if (this.#pendingCount > 0 && this.#pendingCount < this.#embedder.maxBatch) await this.#wakeup.sleep(GATHER_MS);
      const batch = this.#nextBatch();
      if (batch === undefined) {
        await this.#wakeup.sleep(Infinity);
        continue;
      }
      try {
        await this.#embedBatch(batch.agentId, batch.ids);
        this.#succeeded();
        backoff = FIRST_BACKOFF_MS;
      } catch (err) {
        this.#failed(firstLine(err));
        if (!this.#closed) await this.#wakeup.sleep(backoff);
        backoff = Math.min(2 * backoff, MAX_BACKOFF_MS);
      }
    }
  }

  /** Up to a batch of one agent's queued facts, oldest queued first. */
  #nextBatch(): { agentId: string; ids: string[] } | undefined {
    for (const [agentId, set] of this.#pending) {
      const ids: string[] = [];
      for (const id of set) {
        ids.push(id);
        if (ids.length === this.#embedder.maxBatch) break;
      }
      return { agentId, ids };
    }
    return undefined;
  }

  /**
   * Embeds and stores one batch. Vectors another daemon already stored are
   * taken as they are; a fact that stopped being current is dropped. A
   * text the embedder refuses on its own (too long for it, say) is left
   * unembedded and reported; a refusal of every text is the embedder's and
   * throws, so the batch waits.
   */
  async #embedBatch(agentId: string, ids: readonly string[]): Promise<void> {
    const generation = this.#generation;
    const space = this.#embedder.space;
    const texts = await this.#store.factTexts(agentId, ids);
    const current = new Set(texts.map((t) => t.id));
    for (const id of ids) if (!current.has(id)) this.#unqueue(agentId, id);
    const stored = await this.#store.readVectors(space, agentId, [...current]);
    this.#accept(agentId, stored, generation);
    const have = new Set(stored.map((v) => v.id));
    const todo = texts.filter((t) => !have.has(t.id));
    if (todo.length === 0) return;
    let vectors: Float32Array[];
    try {
      vectors = await this.#embedder.embed(todo.map((t) => t.text), 'document');
    } catch (err) {
      if (!(err instanceof EmbedderError) || err.retryable || todo.length === 1) {
        if (err instanceof EmbedderError && !err.retryable && todo.length === 1 && (await this.#refusedAlone(agentId, todo[0]!.id))) return;
        throw err;
      }
      // Refused as a whole: find out, one text at a time, whether one text is the cause.
      for (const t of todo) await this.#embedBatch(agentId, [t.id]);
      return;
    }
    if (this.#dimensions === 0) this.#dimensions = vectors[0]!.length;
    if (vectors[0]!.length !== this.#dimensions) {
      throw new EmbedderError(
        `the embedder answered vectors of ${vectors[0]!.length} dimensions, the stored vectors have ${this.#dimensions}; if the model changed, run memoryctl embeddings rebuild`,
        { retryable: false },
      );
    }
    const made = todo.map((t, i) => ({ id: t.id, vector: vectors[i]! }));
    const kept = new Set(await this.#store.putVectors(space, agentId, made));
    this.#accept(agentId, made.filter((v) => kept.has(v.id)), generation);
    for (const v of made) this.#unqueue(agentId, v.id);
  }

  /**
   * One text was refused with an error that is not worth retrying. When
   * the embedder takes another text, this one is the cause: it is left
   * unembedded (lexical search still finds it) and true is returned.
   */
  async #refusedAlone(agentId: string, id: string): Promise<boolean> {
    try {
      await this.#embedder.embed(['memoryd'], 'document');
    } catch {
      return false;
    }
    this.#log.warn('the embedder refused a fact; it is searched by its words only', { agentId, factId: id });
    this.#unqueue(agentId, id);
    return true;
  }

  /** Puts vectors into the agent's index, unless a rebuild began since they were asked for. */
  #accept(agentId: string, vectors: readonly StoredVector[], generation: number): void {
    if (generation !== this.#generation) return;
    const stale: string[] = [];
    this.#index(agentId, vectors, stale);
    for (const v of vectors) if (!stale.includes(v.id)) this.#unqueue(agentId, v.id);
  }
}
