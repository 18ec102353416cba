/**
 * The embedder seam (docs/embeddings.md): one interface in front of every
 * provider that turns text into vectors. The embedding queue
 * (embed/embed-queue.ts) and the query vectors of a search
 * (embed/query-vectors.ts) use only this.
 */

/** Which side of a search a text is on: some models embed the two differently (an instruction or a prefix). */
export type EmbedPurpose = 'query' | 'document';

/** The providers --embedder chooses from (`none`: no embedder, search is lexical). */
export const EmbedderKinds = ['none', 'ollama', 'openai', 'local'] as const;
export type EmbedderKind = (typeof EmbedderKinds)[number];

export interface Embedder {
  /** The provider: `ollama`, `openai` or `local`. */
  readonly kind: Exclude<EmbedderKind, 'none'>;
  /** The model's name as the provider knows it. */
  readonly model: string;
  /**
   * Vectors are kept per space (`kind:model`, and the local model's
   * revision): a vector of another space is never compared with this one's.
   */
  readonly space: string;
  /** Largest batch one call may carry. */
  readonly maxBatch: number;
  /**
   * One vector per text, in order, each of the model's dimensions. Fails
   * with an {@link EmbedderError} whose message is one line naming the
   * cause (unreachable, timed out, HTTP status, malformed answer); a
   * vector of a length other than the others' is such a failure.
   */
  embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]>;
  /** Releases what the provider holds (a model session, sockets). */
  close(): Promise<void>;
}

/** A provider's failure: `message` is one line for status and logs; `retryable` says whether waiting may help. */
export class EmbedderError extends Error {
  readonly retryable: boolean;
  constructor(message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EmbedderError';
    this.retryable = options.retryable;
  }
}
