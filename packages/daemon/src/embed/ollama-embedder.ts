import type { EmbedPurpose } from './embedder.js';
import { HttpEmbedder } from './http-embedder.js';
import { checkVectors, postJson } from './http-json.js';

/** Ollama (`POST {url}/api/embed`, Ollama 0.3.4 and later): no key, texts in batches. */
export class OllamaEmbedder extends HttpEmbedder {
  readonly kind = 'ollama';

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const url = `${this.baseUrl}/api/embed`;
    const answer = await postJson({
      url,
      body: { model: this.model, input: this.inputs(texts, purpose), truncate: true },
      timeoutMs: this.timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    });
    return checkVectors(new URL(url).origin, (answer as { embeddings?: unknown }).embeddings, texts.length);
  }
}
