import http from 'node:http';
import https from 'node:https';
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

/** Connections kept open between calls: a search's query costs a round trip, not a handshake. */
const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 8 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 8 }) };

/** One exchange: the status and the body as text. node:http, not fetch: a third of fetch's cost a call here. */
function exchange(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<{ status: number; statusText: string; text: string }> {
  const protocol = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = protocol.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
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
  const url = new URL(request.url);
  const where = url.origin;
  let answer: { status: number; statusText: string; text: string };
  try {
    answer = await exchange(url, JSON.stringify(request.body), request.headers ?? {}, signal);
  } catch (err) {
    if (timeout.aborted) throw new EmbedderError(`${where} did not answer within ${request.timeoutMs} ms`, { retryable: true, cause: err });
    if (request.signal?.aborted) throw new EmbedderError('cancelled', { retryable: true, cause: err });
    const code = (err as NodeJS.ErrnoException).code;
    throw new EmbedderError(`cannot reach ${where}: ${code ?? (err as Error).message}`, { retryable: true, cause: err });
  }
  const { status, statusText, text } = answer;
  if (status < 200 || status > 299) {
    // 408, 429 and 5xx may pass; any other refusal (a wrong key, an unknown model) stays until the configuration changes.
    const retryable = status === 408 || status === 429 || status >= 500;
    throw new EmbedderError(`${where} answered HTTP ${status}: ${bodyExcerpt(text) || statusText}`, { retryable });
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
