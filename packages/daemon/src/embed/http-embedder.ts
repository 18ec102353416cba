import type { EmbedPurpose, Embedder } from './embedder.js';

/** Options of an HTTP provider. */
export interface HttpEmbedderOptions {
  /** The server's base URL (--embed-url). */
  url: string;
  model: string;
  /** Bound on one call embedding documents. */
  timeoutMs: number;
}

/**
 * Models that want their texts marked as a query or a document (their
 * model cards say so); others get the text as it is.
 */
const PREFIXES: Array<{ model: RegExp; query: string; document: string }> = [
  { model: /^nomic-embed-text/, query: 'search_query: ', document: 'search_document: ' },
  { model: /^mxbai-embed-large/, query: 'Represent this sentence for searching relevant passages: ', document: '' },
  { model: /^(snowflake-arctic-embed|bge-)/, query: 'Represent this sentence for searching relevant passages: ', document: '' },
];

/** The text as the model wants it for `purpose`. */
export function withPrefix(model: string, text: string, purpose: EmbedPurpose): string {
  const rule = PREFIXES.find((p) => p.model.test(model));
  return rule === undefined ? text : `${purpose === 'query' ? rule.query : rule.document}${text}`;
}

/**
 * What the HTTP providers share: a model on a server, its space, batches
 * of 64, a bound on each call. A provider says where it posts and how it
 * reads the answer.
 */
export abstract class HttpEmbedder implements Embedder {
  abstract readonly kind: 'ollama' | 'openai';
  readonly model: string;
  readonly maxBatch = 64;
  protected readonly timeoutMs: number;
  protected readonly baseUrl: string;

  constructor(options: HttpEmbedderOptions) {
    this.model = options.model;
    this.timeoutMs = options.timeoutMs;
    this.baseUrl = options.url.replace(/\/+$/, '');
  }

  get space(): string {
    return `${this.kind}:${this.model}`;
  }

  abstract embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]>;

  /** The texts as the model wants them. */
  protected inputs(texts: readonly string[], purpose: EmbedPurpose): string[] {
    return texts.map((t) => withPrefix(this.model, t, purpose));
  }

  async close(): Promise<void> {}
}
