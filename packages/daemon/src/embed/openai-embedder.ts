import { EmbedderError, type EmbedPurpose } from './embedder.js';
import { HttpEmbedder, type HttpEmbedderOptions } from './http-embedder.js';
import { checkVectors, EmbedderHttpError, postJson } from './http-json.js';

/**
 * How the vectors are asked for: `base64` (little-endian float32s, a
 * third of the bytes of JSON numbers and much faster to read) or `float`
 * (lists of numbers), for servers that do not take `base64`.
 */
type Encoding = 'base64' | 'float';

/**
 * The statuses of a server that may be refusing `encoding_format: "base64"`
 * (OpenAI's own API answers an unknown parameter value with 400; servers
 * built on FastAPI answer 422). Any other refusal (a wrong key, an unknown
 * model) would refuse floats as well.
 */
const REFUSED_PARAMETER: ReadonlySet<number> = new Set([400, 422]);

/**
 * Any OpenAI-compatible server (`POST {url}/v1/embeddings`: OpenAI, vLLM,
 * llama.cpp's server, LM Studio, Ollama's own /v1, text-embeddings-inference):
 * the key, when there is one, as a bearer token. Vectors are asked for in
 * base64; a server that refuses that or ignores it is asked for floats
 * from then on.
 */
export class OpenAiEmbedder extends HttpEmbedder {
  readonly kind = 'openai';
  readonly #headers: Record<string, string>;
  #encoding: Encoding = 'base64';

  constructor(options: HttpEmbedderOptions & { key: string | undefined }) {
    super(options);
    this.#headers = options.key === undefined ? {} : { authorization: `Bearer ${options.key}` };
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    if (this.#encoding === 'float') return (await this.#post(texts, purpose, 'float', signal)).vectors;
    let answer: { vectors: Float32Array[]; numbers: boolean };
    try {
      answer = await this.#post(texts, purpose, 'base64', signal);
    } catch (err) {
      if (!(err instanceof EmbedderHttpError && REFUSED_PARAMETER.has(err.status))) throw err;
      // One retry with floats. Only its success says base64 was the trouble: a
      // 400 for another reason (an input too long) fails again and is surfaced,
      // and the next call asks for base64 again.
      const floats = await this.#post(texts, purpose, 'float', signal);
      this.#encoding = 'float';
      return floats.vectors;
    }
    // A server that ignores the parameter answers numbers: asking for them saves nothing, but says what it does.
    if (answer.numbers) this.#encoding = 'float';
    return answer.vectors;
  }

  /** One request; its vectors, and whether every one came as a list of numbers. */
  async #post(texts: readonly string[], purpose: EmbedPurpose, encoding: Encoding, signal: AbortSignal | undefined): Promise<{ vectors: Float32Array[]; numbers: boolean }> {
    // A URL already ending in /v1 (as OpenAI's own docs write it) is not given a second one.
    const url = `${this.baseUrl.replace(/\/v1$/, '')}/v1/embeddings`;
    const answer = await postJson({
      url,
      body: { model: this.model, input: this.inputs(texts, purpose), encoding_format: encoding },
      headers: this.#headers,
      timeoutMs: this.timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    const where = new URL(url).origin;
    const data = (answer as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new EmbedderError(`${where} answered without a data list`, { retryable: true });
    // The list is in input order by `index`; a server may send it in another.
    const ordered = [...(data as Array<{ index?: unknown; embedding?: unknown } | null>)]
      .sort((a, b) => Number(a?.index ?? 0) - Number(b?.index ?? 0))
      .map((d) => d?.embedding);
    // Numbers are accepted whatever was asked: some servers ignore `encoding_format`.
    const vectors = checkVectors(where, ordered, texts.length, { base64: encoding === 'base64' });
    return { vectors, numbers: ordered.every((v) => typeof v !== 'string') };
  }
}
