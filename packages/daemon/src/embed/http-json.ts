import http from 'node:http';
import https from 'node:https';
import { endianness } from 'node:os';
import { CallSignal } from './call-signal.js';
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

/**
 * A provider's refusal: an HTTP status outside 2xx. `status` tells a
 * parameter the server does not take (400, 422) from a wrong key (401) or
 * an unknown model (404).
 */
export class EmbedderHttpError extends EmbedderError {
  readonly status: number;
  constructor(message: string, options: { retryable: boolean; status: number }) {
    super(message, { retryable: options.retryable });
    this.status = options.status;
  }
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
  const call = new CallSignal(request.signal, request.timeoutMs);
  const url = new URL(request.url);
  const where = url.origin;
  let answer: { status: number; statusText: string; text: string };
  try {
    answer = await exchange(url, JSON.stringify(request.body), request.headers ?? {}, call.signal);
  } catch (err) {
    if (call.timedOut) throw new EmbedderError(`${where} did not answer within ${request.timeoutMs} ms`, { retryable: true, cause: err });
    if (request.signal?.aborted) throw new EmbedderError('cancelled', { retryable: true, cause: err });
    const code = (err as NodeJS.ErrnoException).code;
    throw new EmbedderError(`cannot reach ${where}: ${code ?? (err as Error).message}`, { retryable: true, cause: err });
  } finally {
    call.dispose();
  }
  const { status, statusText, text } = answer;
  if (status < 200 || status > 299) {
    // 408, 429 and 5xx may pass; any other refusal (a wrong key, an unknown model) stays until the configuration changes.
    const retryable = status === 408 || status === 429 || status >= 500;
    throw new EmbedderHttpError(`${where} answered HTTP ${status}: ${bodyExcerpt(text) || statusText}`, { retryable, status });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EmbedderError(`${where} answered with something that is not JSON: ${bodyExcerpt(text)}`, { retryable: true, cause: err });
  }
}

/** Float32Array's own byte order is the host's: copied as it is where that is little-endian (as store/postgres/pg-vectors.ts does). */
const HOST_LE = endianness() === 'LE';

/** Standard base64 (RFC 4648 section 4); padding is optional, as some servers leave it off. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A vector sent as a list of numbers. */
function numberVector(where: string, v: unknown): Float32Array {
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new EmbedderError(`${where} answered a vector that is not a list of numbers`, { retryable: true });
  }
  return Float32Array.from(v as number[]);
}

/**
 * A vector sent as OpenAI's `encoding_format: "base64"` sends it: its
 * float32 components, little-endian, in base64. Node's decoder skips what
 * is not base64 rather than failing, so the text is checked first.
 */
function base64Vector(where: string, text: string): Float32Array {
  const digits = text.replace(/=+$/, '').length;
  const padding = text.length - digits;
  if (!BASE64.test(text) || digits % 4 === 1 || (padding > 0 && text.length % 4 !== 0)) {
    throw new EmbedderError(`${where} answered a vector that is not base64`, { retryable: true });
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) {
    throw new EmbedderError(`${where} answered a base64 vector of ${bytes.length} bytes, not whole float32s`, { retryable: true });
  }
  // A new Float32Array, not a view of `bytes`: Buffer's pool need not align to 4.
  const vector = new Float32Array(bytes.length / 4);
  if (HOST_LE) new Uint8Array(vector.buffer).set(bytes);
  else for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  for (const x of vector) {
    if (!Number.isFinite(x)) throw new EmbedderError(`${where} answered a base64 vector with a component that is not finite`, { retryable: true });
  }
  return vector;
}

/**
 * The vectors of an answer, checked: `count` vectors, all of one length,
 * every component finite. Each is a list of numbers or, when `base64` is
 * set, also a base64 string of little-endian float32s. Anything else is
 * the provider's fault, said in one line.
 */
export function checkVectors(where: string, vectors: unknown, count: number, options: { base64?: boolean } = {}): Float32Array[] {
  if (!Array.isArray(vectors)) throw new EmbedderError(`${where} answered without vectors`, { retryable: true });
  if (vectors.length !== count) throw new EmbedderError(`${where} answered ${vectors.length} vectors for ${count} texts`, { retryable: true });
  const out: Float32Array[] = [];
  for (const v of vectors) {
    const vector = options.base64 === true && typeof v === 'string' ? base64Vector(where, v) : numberVector(where, v);
    if (out.length > 0 && vector.length !== out[0]!.length) {
      throw new EmbedderError(`${where} answered vectors of ${out[0]!.length} and ${vector.length} dimensions in one batch`, { retryable: true });
    }
    out.push(vector);
  }
  return out;
}
