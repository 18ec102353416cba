import type { Logger } from '../logger.js';

/** What `daemon.status.embeddings` says of the embedder's failures (docs/embeddings.md, "When the embedder fails"). */
export interface EmbedHealthState {
  lastError?: string;
  lastErrorAt?: string;
  stopped?: true;
}

/**
 * The embedder's health, as meaning search reports it: the last failure
 * and when it happened, cleared by the next call that succeeds (a query's
 * or the queue's); and whether the queue stopped on a failure that
 * waiting cannot mend (an unknown model, a refused key, vectors of other
 * dimensions than the stored ones), until a restart or a rebuild.
 */
export class EmbedHealth {
  readonly #log: Logger;
  #lastError: string | undefined;
  #lastErrorAt: Date | undefined;
  #stopped = false;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Whether the queue stopped (and searches answer lexically without asking). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** A call failed; waiting may mend it. Logged when the cause changes. */
  failed(message: string): void {
    if (this.#lastError !== message) this.#log.warn('the embedder failed; searches are lexical for what it has not embedded', { cause: message });
    this.#lastError = message;
    this.#lastErrorAt = new Date();
  }

  /** A failure that only another configuration mends: the queue stops, and says why. */
  stop(message: string): void {
    this.#log.error('meaning search stopped embedding: restart memoryd with another configuration, or run memoryctl embeddings rebuild', { cause: message });
    this.#lastError = message;
    this.#lastErrorAt = new Date();
    this.#stopped = true;
  }

  /** A call succeeded: the last failure is history. */
  succeeded(): void {
    if (this.#lastError === undefined || this.#stopped) return;
    this.#log.info('the embedder answers again', { after: this.#lastError });
    this.#lastError = undefined;
    this.#lastErrorAt = undefined;
  }

  /** A rebuild starts over: a stop and its cause are forgotten. */
  reset(): void {
    this.#stopped = false;
    this.#lastError = undefined;
    this.#lastErrorAt = undefined;
  }

  state(): EmbedHealthState {
    const state: EmbedHealthState = {};
    if (this.#lastError !== undefined) state.lastError = this.#lastError;
    if (this.#lastErrorAt !== undefined) state.lastErrorAt = this.#lastErrorAt.toISOString();
    if (this.#stopped) state.stopped = true;
    return state;
  }
}
