import { firstLine } from '../errors.js';
import type { Logger } from '../logger.js';
import type { StoredVector, VectorStore } from '../store/vector-store.js';
import type { AgentVectors } from './agent-vectors.js';
import type { EmbedHealth } from './embed-health.js';
import { type Embedder, EmbedderError } from './embedder.js';

/** First wait before a fact whose text failed alone is tried again; doubles up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** First wait before a fact another daemon claimed is looked at again; doubles up to {@link ELSEWHERE_MAX_MS}. */
const ELSEWHERE_FIRST_MS = 1_000;
const ELSEWHERE_MAX_MS = 30_000;
/**
 * A fact whose text fails alone this many times, while other texts are
 * embedded, is left to lexical search: it is the text, not the provider.
 */
const GIVE_UP_AFTER = 5;

/** A fact waiting for its vector. */
interface Waiting {
  /** Not before this time (it failed alone, or another daemon claimed it). */
  notBefore: number;
  /** Times its text failed alone. */
  failures: number;
  /** Batches embedded (all facts) when it first failed alone. */
  embeddedAtFirstFailure: number;
  /** Times it was found claimed by another daemon. */
  elsewhere: number;
}

/** Up to a batch of one agent's facts. */
export interface Batch {
  agentId: string;
  ids: string[];
}

/**
 * How a batch went: `done` (embedded, or nothing left to embed), `failed`
 * (a failure that waiting may mend: the worker backs off when failures
 * follow each other), `split` (refused as a whole: the agent's batches
 * shrink, tried again at once), `stopped` (only another configuration
 * mends it: the queue stops).
 */
export type BatchOutcome = 'done' | 'failed' | 'split' | 'stopped';

export interface EmbedQueueOptions {
  embedder: Embedder;
  store: VectorStore;
  vectors: AgentVectors;
  health: EmbedHealth;
  logger: Logger;
}

/**
 * The facts to embed, and how a batch of them is embedded
 * (docs/embeddings.md, "What happens").
 *
 * Agents take turns (round robin), so one agent's million facts or one
 * agent's failing batch never holds the others up. A batch that fails is
 * split: the agent's batches halve, down to one text, and grow back as
 * they succeed (64 long texts may time out where 8 do not). A text that
 * fails alone waits, with backoff, behind the agent's other facts; one
 * refused alone while the provider takes other texts is left to lexical
 * search. A refusal of every text, or vectors of other dimensions, stops
 * the queue (EmbedHealth) until a restart or a rebuild.
 *
 * Before a batch is embedded it is claimed in the store, so that of the
 * daemons sharing a database one embeds each fact; the others find the
 * vector stored when they look again.
 */
export class EmbedQueue {
  readonly #embedder: Embedder;
  readonly #store: VectorStore;
  readonly #vectors: AgentVectors;
  readonly #health: EmbedHealth;
  readonly #log: Logger;
  /** Facts to embed, by agent: agents in turn order, facts oldest queued first. */
  readonly #agents = new Map<string, Map<string, Waiting>>();
  /** Each agent's batch size, when a failure made it smaller than the embedder's. */
  readonly #batchSizes = new Map<string, number>();
  #size = 0;
  /** Batches embedded since start (a fact that fails alone while this grows is the text's fault). */
  #embedded = 0;

  constructor(options: EmbedQueueOptions) {
    this.#embedder = options.embedder;
    this.#store = options.store;
    this.#vectors = options.vectors;
    this.#health = options.health;
    this.#log = options.logger;
  }

  /** Facts queued. */
  get size(): number {
    return this.#size;
  }

  /** Queues a fact; false when it already was. */
  add(agentId: string, id: string): boolean {
    let facts = this.#agents.get(agentId);
    if (facts === undefined) this.#agents.set(agentId, (facts = new Map()));
    if (facts.has(id)) return false;
    facts.set(id, { notBefore: 0, failures: 0, embeddedAtFirstFailure: 0, elsewhere: 0 });
    this.#size++;
    return true;
  }

  remove(agentId: string, id: string): void {
    const facts = this.#agents.get(agentId);
    if (facts?.delete(id) !== true) return;
    this.#size--;
    if (facts.size > 0) return;
    this.#agents.delete(agentId);
    this.#batchSizes.delete(agentId);
  }

  clear(): void {
    this.#agents.clear();
    this.#batchSizes.clear();
    this.#size = 0;
  }

  /**
   * The next batch at `now`: the first agent in turn with a fact due, up
   * to its batch size of them, oldest first. The agent then goes to the
   * back of the turn.
   */
  next(now: number): Batch | undefined {
    for (const [agentId, facts] of this.#agents) {
      const size = this.#batchSizes.get(agentId) ?? this.#embedder.maxBatch;
      const ids: string[] = [];
      for (const [id, w] of facts) {
        if (w.notBefore > now) continue;
        ids.push(id);
        if (ids.length === size) break;
      }
      if (ids.length === 0) continue;
      this.#agents.delete(agentId);
      this.#agents.set(agentId, facts);
      return { agentId, ids };
    }
    return undefined;
  }

  /** When the next fact set aside is due (Infinity when none is). */
  nextDue(): number {
    let due = Infinity;
    for (const facts of this.#agents.values()) for (const w of facts.values()) due = Math.min(due, w.notBefore);
    return due;
  }

  /**
   * Embeds one batch and stores its vectors. `current` says whether the
   * work still counts (a rebuild since drops it); `signal` ends a call in
   * flight when the daemon stops.
   */
  async embed(batch: Batch, signal: AbortSignal, current: () => boolean): Promise<BatchOutcome> {
    const { agentId } = batch;
    const space = this.#embedder.space;
    let claim;
    try {
      const texts = await this.#store.textsToEmbed(agentId, batch.ids);
      const live = new Set(texts.map((t) => t.id));
      for (const id of batch.ids) if (!live.has(id)) this.remove(agentId, id);
      if (texts.length === 0) return 'done';
      claim = await this.#store.claimVectors(space, agentId, [...live]);
      const claimed = new Set(claim.ids);
      for (const id of live) if (!claimed.has(id)) this.#elsewhere(agentId, id);
      // Vectors stored by another daemon, or by this one before a restart, are taken as they are.
      const stored = claimed.size === 0 ? [] : await this.#store.readVectors(space, agentId, [...claimed]);
      if (!current()) return 'done';
      this.#accept(agentId, stored);
      const have = new Set(stored.map((v) => v.id));
      const todo = texts.filter((t) => claimed.has(t.id) && !have.has(t.id));
      if (todo.length === 0) return 'done';
      let vectors: Float32Array[];
      try {
        vectors = await this.#embedder.embed(
          todo.map((t) => t.text),
          'document',
          signal,
        );
      } catch (err) {
        if (signal.aborted) return 'done';
        return await this.#failed(agentId, todo.map((t) => t.id), err, signal);
      }
      const dimensions = this.#vectors.dimensions;
      if (dimensions !== 0 && vectors[0]!.length !== dimensions) {
        this.#health.stop(
          `the embedder answered vectors of ${vectors[0]!.length} dimensions, the stored vectors have ${dimensions}; if the model changed, run memoryctl embeddings rebuild`,
        );
        return 'stopped';
      }
      if (!current()) return 'done';
      const made = todo.map((t, i) => ({ id: t.id, vector: vectors[i]! }));
      const kept = new Set(await this.#store.putVectors(space, agentId, made));
      if (!current()) return 'done';
      this.#accept(agentId, made.filter((v) => kept.has(v.id)));
      for (const v of made) this.remove(agentId, v.id);
      this.#embedded++;
      this.#health.succeeded();
      this.#grow(agentId, todo.length);
      return 'done';
    } catch (err) {
      // The store failed (the embedder's failures are handled above): the batch waits, as for a provider down.
      if (signal.aborted) return 'done';
      this.#health.failed(`the store: ${firstLine(err)}`);
      return 'failed';
    } finally {
      await claim?.release();
    }
  }

  /** Puts stored or new vectors into the agent's index; one refused for its length stays queued, to embed again. */
  #accept(agentId: string, vectors: readonly StoredVector[]): void {
    const refused = new Set(this.#vectors.put(agentId, vectors));
    for (const v of vectors) if (!refused.has(v.id)) this.remove(agentId, v.id);
  }

  /** The embedder failed `ids` as one call. */
  async #failed(agentId: string, ids: readonly string[], err: unknown, signal: AbortSignal): Promise<BatchOutcome> {
    const message = firstLine(err);
    const retryable = !(err instanceof EmbedderError) || err.retryable;
    if (ids.length > 1) {
      // Smaller batches, down to single texts: a batch too long for the provider's bound, or one text that spoils its batch.
      this.#batchSizes.set(agentId, Math.ceil(ids.length / 2));
      this.#health.failed(message);
      return retryable ? 'failed' : 'split';
    }
    const id = ids[0]!;
    if (!retryable) {
      if (await this.#takesOtherTexts(signal)) {
        this.#log.warn('the embedder refused a fact; it is searched by its words only', { agentId, factId: id, cause: message });
        this.remove(agentId, id);
        return 'done';
      }
      if (signal.aborted) return 'done';
      this.#health.stop(message);
      return 'stopped';
    }
    this.#health.failed(message);
    const w = this.#agents.get(agentId)?.get(id);
    if (w === undefined) return 'failed';
    if (w.failures === 0) w.embeddedAtFirstFailure = this.#embedded;
    w.failures++;
    if (w.failures >= GIVE_UP_AFTER && this.#embedded > w.embeddedAtFirstFailure) {
      this.#log.warn('a fact failed to embed on its own while others were embedded; it is searched by its words only', { agentId, factId: id, cause: message });
      this.remove(agentId, id);
      return 'failed';
    }
    this.#setAside(agentId, id, w, Math.min(RETRY_FIRST_MS * 2 ** (w.failures - 1), RETRY_MAX_MS));
    return 'failed';
  }

  /** Whether the embedder takes a plain text: then a text it refused alone is that text's fault. */
  async #takesOtherTexts(signal: AbortSignal): Promise<boolean> {
    try {
      await this.#embedder.embed(['memoryd'], 'document', signal);
      return true;
    } catch {
      return false;
    }
  }

  /** Another daemon claimed the fact: looked at again later, when its vector is likely stored. */
  #elsewhere(agentId: string, id: string): void {
    const w = this.#agents.get(agentId)?.get(id);
    if (w === undefined) return;
    this.#setAside(agentId, id, w, Math.min(ELSEWHERE_FIRST_MS * 2 ** w.elsewhere, ELSEWHERE_MAX_MS));
    w.elsewhere++;
  }

  /** Not before `ms` from now, and behind the agent's other facts. */
  #setAside(agentId: string, id: string, w: Waiting, ms: number): void {
    w.notBefore = Date.now() + ms;
    const facts = this.#agents.get(agentId)!;
    facts.delete(id);
    facts.set(id, w);
  }

  /** A batch of `n` succeeded: the agent's batches grow back towards the embedder's size. */
  #grow(agentId: string, n: number): void {
    const size = this.#batchSizes.get(agentId);
    if (size === undefined || n < size) return;
    if (2 * size >= this.#embedder.maxBatch) this.#batchSizes.delete(agentId);
    else this.#batchSizes.set(agentId, 2 * size);
  }
}
