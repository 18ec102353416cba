// The request and answer shapes of the two embedding APIs the fake
// embedder (fake-embedder.ts) speaks, as their servers send them.

/** The API a request came in by: Ollama's /api/embed or the OpenAI-compatible /v1/embeddings. */
export type Api = 'ollama' | 'openai';

/** A request's model and texts. */
export interface Input {
  model: string;
  texts: string[];
}

/** The error body each API sends; `param` names the field at fault, as OpenAI's does. */
export function errorBody(api: Api, message: string, type: string, param: string | null = null): string {
  return JSON.stringify(api === 'ollama' ? { error: message } : { error: { message, type, param, code: null } });
}

/** A vector as OpenAI's `encoding_format: "base64"` sends it: float32s, little-endian whatever this host's order. */
export function base64Of(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The request's `encoding_format`, when it has a body that is a JSON object. */
export function encodingOf(body: string): unknown {
  try {
    return ((JSON.parse(body) ?? {}) as { encoding_format?: unknown }).encoding_format;
  } catch {
    return undefined;
  }
}

/** The request's texts, or a reason it has none. */
export function parseInput(body: string): Input | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the body is not JSON';
  }
  const { model, input } = (parsed ?? {}) as { model?: unknown; input?: unknown };
  if (typeof model !== 'string') return 'model must be a string';
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || !texts.every((t): t is string => typeof t === 'string')) return 'input must be a string or a list of strings';
  return { model, texts };
}
