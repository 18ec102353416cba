import { EmbedderError, type EmbedPurpose } from './embedder.js';
import { HttpEmbedder, type HttpEmbedderOptions } from './http-embedder.js';
import { checkVectors, postJson } from './http-json.js';

/**
 * Any OpenAI-compatible server (`POST {url}/v1/embeddings`: OpenAI, vLLM,
 * llama.cpp's server, LM Studio, Ollama's own /v1, text-embeddings-inference):
 * the key, when there is one, as a bearer token.
 */
export class OpenAiEmbedder extends HttpEmbedder {
  readonly kind = 'openai';
  readonly #headers: Record<string, string>;

  constructor(options: HttpEmbedderOptions & { key: string | undefined }) {
    super(options);
    this.#headers = options.key === undefined ? {} : { authorization: `Bearer ${options.key}` };
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // A URL already ending in /v1 (as OpenAI's own docs write it) is not given a second one.
    const url = `${this.baseUrl.replace(/\/v1$/, '')}/v1/embeddings`;
    const answer = await postJson({
      url,
      body: { model: this.model, input: this.inputs(texts, purpose), encoding_format: 'float' },
      headers: this.#headers,
      timeoutMs: this.timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    const where = new URL(url).origin;
    const data = (answer as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new EmbedderError(`${where} answered without a data list`, { retryable: true });
    // The list is in input order by `index`; a server may send it in another.
    const ordered = [...(data as Array<{ index?: unknown; embedding?: unknown }>)].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
    return checkVectors(where, ordered.map((d) => d.embedding), texts.length);
  }
}
