import type { Fact } from '@memoryd/protocol';
import { firstLine } from '../errors.js';
import type { Logger } from '../logger.js';
import type { LexicalResult } from '../store/memory-store.js';
import type { FactChange, VectorStore } from '../store/vector-store.js';
import { AgentVectors } from './agent-vectors.js';
import { EmbedHealth, type EmbedHealthState } from './embed-health.js';
import { EmbedQueue } from './embed-queue.js';
import type { Embedder } from './embedder.js';
import { hybridSearch } from './hybrid-search.js';
import { QueryVectors } from './query-vectors.js';
import { VectorLoads } from './vector-loads.js';

/** Meaning search's state, as `daemon.status.embeddings` reports it. */
export interface EmbeddingsState extends EmbedHealthState {
  embedder: string;
  model: string;
  dimensions: number;
  pending: number;
}

export interface EmbeddingsOptions {
  embedder: Embedder;
  store: VectorStore;
  logger: Logger;
}

/** First wait after failures follow each other (the provider, or the store, is down); doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/**
 * A queue shorter than a batch, woken from idle, waits this long for more
 * before it is embedded: one call and one write for a burst of adds, not
 * one each.
 */
const GATHER_MS = 100;

/** Why the worker sleeps: with nothing due, gathering a burst, or backing off after failures. */
type SleepKind = 'idle' | 'gather' | 'backoff';

/** The worker's sleep, which {@link Wakeup.wake} cuts short when it is of one of the kinds given. */
class Wakeup {
  #wake: (() => void) | undefined;
  #kind: SleepKind | undefined;
  #timer: NodeJS.Timeout | undefined;

  sleep(ms: number, kind: SleepKind): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
      this.#kind = kind;
      if (Number.isFinite(ms)) this.#timer = setTimeout(resolve, Math.max(0, ms));
    }).finally(() => {
      clearTimeout(this.#timer);
      this.#wake = undefined;
      this.#kind = undefined;
    });
  }

  /** Ends the sleep if it is of one of `kinds` (any, by default). */
  wake(...kinds: SleepKind[]): void {
    if (this.#kind !== undefined && (kinds.length === 0 || kinds.includes(this.#kind))) this.#wake?.();
  }

  /** Whether the worker sleeps, and why. */
  get kind(): SleepKind | undefined {
    return this.#kind;
  }
}

/**
 * Meaning search (docs/embeddings.md): keeps every current fact's vector
 * of the embedder's space, in the store and in memory, and fuses a vector
 * ranking into `memory.search`. Its parts: the agents' vectors in memory
 * (agent-vectors.ts) and which are loaded (vector-loads.ts), the queue of
 * facts to embed (embed-queue.ts), query vectors (query-vectors.ts), the
 * fused search (hybrid-search.ts, fusion.ts) and the embedder's health
 * (embed-health.ts).
 *
 * What is still to embed is found from the store: every agent's vectors
 * are loaded and its facts without one queued, and every committed change
 * queues or drops a fact. One worker, off every request's path, loads
 * agents and embeds the queue; while the embedder or the store fails it
 * backs off and says why. Nothing here fails a write or a search, and
 * {@link close} cancels whatever is in flight.
 */
export class Embeddings {
  readonly #embedder: Embedder;
  readonly #store: VectorStore;
  readonly #log: Logger;
  readonly #health: EmbedHealth;
  readonly #vectors = new AgentVectors();
  readonly #loads = new VectorLoads();
  readonly #queue: EmbedQueue;
  readonly #queries: QueryVectors;
  readonly #stop = new AbortController();
  readonly #wakeup = new Wakeup();
  #worker: Promise<void> | undefined;
  /** Whether the agents with facts were listed (at start, or by a rebuild). */
  #listed = false;
  /** The next batch may wait {@link GATHER_MS} for more facts (set when the worker was idle). */
  #gather = true;
  /** Bumped by a rebuild: work begun before it is dropped. */
  #generation = 0;

  constructor(options: EmbeddingsOptions) {
    this.#embedder = options.embedder;
    this.#store = options.store;
    this.#log = options.logger;
    this.#health = new EmbedHealth(options.logger);
    this.#queue = new EmbedQueue({ embedder: this.#embedder, store: this.#store, vectors: this.#vectors, health: this.#health, logger: this.#log });
    this.#queries = new QueryVectors(this.#embedder, this.#health, this.#stop.signal);
    this.#store.onFactChanges((changes) => this.#changed(changes));
    this.#store.onResync(() => this.#resync());
  }

  /** Starts loading the stored vectors and embedding what lacks one, in the background. */
  start(): void {
    this.#worker ??= this.#run().catch((err: unknown) => this.#log.error('meaning search stopped', { err }));
  }

  /** `daemon.status.embeddings`. */
  state(): EmbeddingsState {
    return {
      embedder: this.#embedder.kind,
      model: this.#embedder.model,
      dimensions: this.#vectors.dimensions,
      pending: this.#queue.size + this.#loads.pendingFacts,
      ...this.#health.state(),
    };
  }

  /**
   * Drops every stored vector and embeds every current fact again
   * (`admin.reembed`), a stopped queue included; answers how many facts
   * are to embed.
   */
  async rebuild(): Promise<number> {
    this.#generation++;
    await this.#store.dropVectors();
    this.#vectors.clear();
    this.#queue.clear();
    this.#queries.clear();
    this.#loads.clear();
    this.#health.reset();
    const agents = await this.#store.agentsWithFacts();
    for (const { agentId, facts } of agents) this.#loads.wait(agentId, facts);
    this.#listed = true;
    this.#wakeup.wake();
    return agents.reduce((n, a) => n + a.facts, 0);
  }

  /** `memory.search` fused with the vector ranking (hybrid-search.ts). */
  search(agentId: string, query: string, limit: number, lexical: (n: number) => Promise<LexicalResult>): Promise<Fact[]> {
    return hybridSearch({ vectors: this.#vectors, queries: this.#queries, store: this.#store }, agentId, query, limit, lexical);
  }

  /** Cancels the provider's calls and the load in flight, and waits for the worker. */
  async close(): Promise<void> {
    this.#stop.abort(new Error('memoryd is stopping'));
    this.#wakeup.wake();
    await this.#worker;
    await this.#embedder.close();
  }

  /** A committed change: a fact now current is queued, a fact gone leaves its index and the queue. */
  #changed(changes: readonly FactChange[]): void {
    let queued = false;
    for (const { agentId, id, sign } of changes) {
      const state = this.#loads.state(agentId);
      if (sign < 0) {
        this.#vectors.remove(agentId, id);
        this.#queue.remove(agentId, id);
        this.#loads.counted(agentId, -1);
      } else if (state === 'loaded' || state === 'loading') {
        this.#vectors.readmit(agentId, id);
        if (!this.#vectors.has(agentId, id)) queued = this.#queue.add(agentId, id) || queued;
      } else if (state === 'waiting') {
        this.#loads.counted(agentId, 1);
      } else {
        // An agent this daemon does not know yet: loading it finds what it has (a new one, nothing stored).
        this.#loads.wait(agentId, 1);
        queued = true;
      }
    }
    // An idle worker starts at once (then gathers); a gathering one is cut short by a full batch; a backoff runs its course.
    if (queued) this.#wakeup.wake(...(this.#queue.size >= this.#embedder.maxBatch ? (['idle', 'gather'] as const) : (['idle'] as const)));
  }

  /** Changes went unheard (another daemon's, on a shared store): every loaded agent loads again. */
  #resync(): void {
    this.#log.info('reloading the vectors: changes of other daemons may have gone unheard');
    this.#loads.reloadAll();
    this.#wakeup.wake('idle');
  }

  /** The worker: lists the agents, then loads agents and embeds batches as they come due, until close. */
  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let failures = 0;
    const started = Date.now();
    let reported = false;
    while (!signal.aborted) {
      let outcome: 'done' | 'failed' | 'idle';
      if (this.#health.stopped) {
        await this.#wakeup.sleep(Infinity, 'idle');
        continue;
      }
      if (!this.#listed) outcome = await this.#list();
      else {
        const now = Date.now();
        const agentId = this.#loads.take(now);
        if (agentId !== undefined) outcome = await this.#load(agentId, signal);
        else outcome = await this.#embedNext(now, signal);
      }
      if (!reported && this.#listed && this.#loads.pendingFacts === 0 && this.#loads.nextDue() === Infinity) {
        reported = true;
        this.#log.info('meaning search loaded its vectors', { vectors: this.#vectors.size, pending: this.#queue.size, ms: Date.now() - started });
      }
      if (outcome === 'done') failures = 0;
      else if (outcome === 'failed' && ++failures >= 2) {
        // Failures in a row, of different work: the provider or the store is down, not one batch.
        await this.#wakeup.sleep(Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 2), MAX_BACKOFF_MS), 'backoff');
      } else if (outcome === 'idle') {
        this.#gather = true;
        await this.#wakeup.sleep(Math.min(this.#loads.nextDue(), this.#queue.nextDue()) - Date.now(), 'idle');
      }
    }
  }

  /** Lists the agents with facts: each waits to be loaded, its facts pending meanwhile. */
  async #list(): Promise<'done' | 'failed'> {
    try {
      const agents = await this.#store.agentsWithFacts();
      for (const { agentId, facts } of agents) this.#loads.listed(agentId, facts);
      this.#listed = true;
      return 'done';
    } catch (err) {
      if (!this.#stop.signal.aborted) this.#health.failed(`reading the store: ${firstLine(err)}`);
      return 'failed';
    }
  }

  /** Loads one agent's stored vectors and queues its facts without one; a failure is tried again later. */
  async #load(agentId: string, signal: AbortSignal): Promise<'done' | 'failed'> {
    const generation = this.#generation;
    const refused: string[] = [];
    this.#vectors.beginLoad(agentId);
    let missing: string[];
    try {
      missing = await this.#store.loadVectors(
        this.#embedder.space,
        agentId,
        (page) => {
          if (generation === this.#generation) refused.push(...this.#vectors.loadPage(agentId, page));
        },
        signal,
      );
    } catch (err) {
      if (generation !== this.#generation) return 'done';
      this.#vectors.abandonLoad(agentId);
      if (signal.aborted) return 'done';
      const wait = this.#loads.failed(agentId, Date.now());
      this.#health.failed(`loading the vectors of agent ${agentId}: ${firstLine(err)}`);
      this.#log.debug('a load of vectors failed; trying again later', { agentId, waitMs: wait });
      return 'failed';
    }
    if (generation !== this.#generation) return 'done';
    const gone = this.#vectors.endLoad(agentId);
    this.#loads.loaded(agentId);
    let queued = false;
    for (const id of [...missing, ...refused]) if (!gone.has(id)) queued = this.#queue.add(agentId, id) || queued;
    return 'done';
  }

  /** Embeds the next batch due, after gathering a burst; `idle` when none is due. */
  async #embedNext(now: number, signal: AbortSignal): Promise<'done' | 'failed' | 'idle'> {
    const peek = this.#queue.next(now);
    if (peek === undefined) return 'idle';
    if (this.#gather && peek.ids.length < this.#embedder.maxBatch) {
      this.#gather = false;
      await this.#wakeup.sleep(GATHER_MS, 'gather');
      return 'done';
    }
    this.#gather = false;
    const generation = this.#generation;
    const outcome = await this.#queue.embed(peek, signal, () => generation === this.#generation);
    if (outcome === 'stopped' || outcome === 'split') return 'done';
    return outcome;
  }
}
