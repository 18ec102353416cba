import { EmbedderError } from './embedder.js';

/** A POST of JSON to a provider, answered with JSON. */
export interface JsonRequest {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The first line of a provider's error body, short enough for a status line. */
function bodyExcerpt(text: string): string {
  let said = text;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') said = error;
    else if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') said = (error as { message: string }).message;
  } catch {
    // Not JSON: the text itself says what happened.
  }
  const line = said.split('\n')[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * POSTs `body` as JSON and returns the parsed answer. Every failure is an
 * {@link EmbedderError} of one line: unreachable, timed out, an HTTP
 * status with what the provider said, or a body that is not JSON. Retries
 * are the caller's (the queue backs off; a search does not wait).
 */
export async function postJson(request: JsonRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
  const where = new URL(request.url).origin;
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal,
    });
    text = await response.text();
  } catch (err) {
    if (timeout.aborted) throw new EmbedderError(`${where} did not answer within ${request.timeoutMs} ms`, { retryable: true, cause: err });
    if (request.signal?.aborted) throw new EmbedderError('cancelled', { retryable: true, cause: err });
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new EmbedderError(`cannot reach ${where}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { retryable: true, cause: err });
  }
  if (!response.ok) {
    // 408, 429 and 5xx may pass; any other refusal (a wrong key, an unknown model) stays until the configuration changes.
    const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
    throw new EmbedderError(`${where} answered HTTP ${response.status}: ${bodyExcerpt(text) || response.statusText}`, { retryable });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EmbedderError(`${where} answered with something that is not JSON: ${bodyExcerpt(text)}`, { retryable: true, cause: err });
  }
}

/**
 * The vectors of an answer, checked: `count` arrays of finite numbers, all
 * of one length. Anything else is the provider's fault, said in one line.
 */
export function checkVectors(where: string, vectors: unknown, count: number): Float32Array[] {
  if (!Array.isArray(vectors)) throw new EmbedderError(`${where} answered without vectors`, { retryable: true });
  if (vectors.length !== count) throw new EmbedderError(`${where} answered ${vectors.length} vectors for ${count} texts`, { retryable: true });
  const out: Float32Array[] = [];
  for (const v of vectors) {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbedderError(`${where} answered a vector that is not a list of numbers`, { retryable: true });
    }
    if (out.length > 0 && v.length !== out[0]!.length) {
      throw new EmbedderError(`${where} answered vectors of ${out[0]!.length} and ${v.length} dimensions in one batch`, { retryable: true });
    }
    out.push(Float32Array.from(v as number[]));
  }
  return out;
}
