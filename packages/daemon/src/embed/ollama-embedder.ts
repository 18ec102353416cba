import { type EmbedPurpose, type Embedder } from './embedder.js';
import { checkVectors, postJson } from './http-json.js';

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

/** Ollama (`POST {url}/api/embed`, Ollama 0.3.4 and later): no key, texts in batches. */
export class OllamaEmbedder implements Embedder {
  readonly kind = 'ollama';
  readonly model: string;
  readonly space: string;
  readonly maxBatch = 64;
  readonly #endpoint: string;
  readonly #timeoutMs: number;

  constructor(options: HttpEmbedderOptions) {
    this.model = options.model;
    this.space = `ollama:${options.model}`;
    this.#endpoint = new URL('api/embed', options.url.endsWith('/') ? options.url : `${options.url}/`).href;
    this.#timeoutMs = options.timeoutMs;
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const answer = await postJson({
      url: this.#endpoint,
      body: { model: this.model, input: texts.map((t) => withPrefix(this.model, t, purpose)), truncate: true },
      timeoutMs: this.#timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    return checkVectors(new URL(this.#endpoint).origin, (answer as { embeddings?: unknown }).embeddings, texts.length);
  }

  async close(): Promise<void> {}
}
