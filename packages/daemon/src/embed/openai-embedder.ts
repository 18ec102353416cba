import { EmbedderError, type EmbedPurpose, type Embedder } from './embedder.js';
import { checkVectors, postJson } from './http-json.js';
import { type HttpEmbedderOptions, withPrefix } from './ollama-embedder.js';

/**
 * Any OpenAI-compatible server (`POST {url}/v1/embeddings`: OpenAI, vLLM,
 * llama.cpp's server, LM Studio, Ollama's own /v1, text-embeddings-inference):
 * the key, when there is one, as a bearer token.
 */
export class OpenAiEmbedder implements Embedder {
  readonly kind = 'openai';
  readonly model: string;
  readonly space: string;
  readonly maxBatch = 64;
  readonly #endpoint: string;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;

  constructor(options: HttpEmbedderOptions & { key: string | undefined }) {
    this.model = options.model;
    this.space = `openai:${options.model}`;
    // A URL already ending in /v1 (as OpenAI's own docs write it) is not given a second one.
    const base = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.#endpoint = `${base}/v1/embeddings`;
    this.#timeoutMs = options.timeoutMs;
    this.#headers = options.key === undefined ? {} : { authorization: `Bearer ${options.key}` };
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const answer = await postJson({
      url: this.#endpoint,
      body: { model: this.model, input: texts.map((t) => withPrefix(this.model, t, purpose)), encoding_format: 'float' },
      headers: this.#headers,
      timeoutMs: this.#timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    const where = new URL(this.#endpoint).origin;
    const data = (answer as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new EmbedderError(`${where} answered without a data list`, { retryable: true });
    // The list is in input order by `index`; a server may send it in another.
    const ordered = [...(data as Array<{ index?: unknown; embedding?: unknown }>)].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
    return checkVectors(where, ordered.map((d) => d.embedding), texts.length);
  }

  async close(): Promise<void> {}
}
