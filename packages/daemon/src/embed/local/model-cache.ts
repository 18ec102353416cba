/**
 * The local embedder's model files, fetched once into
 * `<dataDir>/models/<model>/<revision>/` and checked every time they are used.
 *
 * A file is streamed from the hub to a temp name beside its final name,
 * hashed while it streams, and renamed into place only when its SHA-256 is
 * the pinned one: a crash, a stall or a wrong byte never leaves a file under
 * the final name that is not the model. Temp names are unique per process
 * and attempt, so two processes fetching the same model each rename a whole,
 * verified file and both end with a good one (rename(2) replaces atomically).
 * A cached file is hashed again before each use; a damaged one is fetched
 * again, once, with a warning.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type LocalModelSpec, type ModelFile, modelFileUrl, modelFiles, modelHub } from './local-models.js';

/** No byte from the hub for this long fails the file (headers included). */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;
/** Further attempts after a network error, a 5xx or a 429. */
export const DEFAULT_FETCH_RETRIES = 3;
/** Wait before the first retry; doubled for each one after it. */
export const DEFAULT_RETRY_DELAY_MS = 1_000;
/**
 * A temp file untouched for this long is a dead process's: removed. A live
 * download writes far more often (it fails after the stall timeout).
 */
const STALE_TEMP_MS = 10 * 60_000;
const TEMP_SUFFIX = '.part';

/** Stable codes of {@link ModelCacheError}: tests and callers branch on these, never on text. */
export type ModelCacheErrorCode =
  /** A fetched file's SHA-256 is not the pinned one. */
  | 'MODEL_CHECKSUM_MISMATCH'
  /** The hub sent nothing for the stall timeout. */
  | 'MODEL_FETCH_STALLED'
  /** The hub answered with an HTTP error status. */
  | 'MODEL_HTTP_STATUS'
  /** The connection failed (refused, reset, no such host). */
  | 'MODEL_FETCH_FAILED'
  /** The caller's signal aborted the fetch. */
  | 'MODEL_FETCH_ABORTED'
  /** Reading or writing the cache dir failed (permissions, disk full). */
  | 'MODEL_CACHE_IO';

/** A model file could not be had. `message` is one line naming the file. */
export class ModelCacheError extends Error {
  readonly code: ModelCacheErrorCode;
  /** Whether trying again later may help (a network fault, not a wrong file or a full disk). */
  readonly retryable: boolean;
  constructor(message: string, options: { code: ModelCacheErrorCode; retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelCacheError';
    this.code = options.code;
    this.retryable = options.retryable;
  }
}

/** How far the fetch of one file has got. */
export interface FetchProgress {
  /** The model's name. */
  readonly model: string;
  /** The file's repository path. */
  readonly file: string;
  /** Bytes received so far. */
  readonly done: number;
  /** Bytes in all, from Content-Length or the table; undefined when neither says. */
  readonly total: number | undefined;
}

/** Where {@link ensureModel} keeps a model, where it fetches it from, and how patiently. */
export interface ModelCacheOptions {
  /** The daemon's data dir; models go under `models/`. */
  readonly dataDir: string;
  /** Hub base URL; default `MEMORYD_MODEL_HUB`, else huggingface.co. */
  readonly hub?: string;
  /** Called as bytes arrive, at least once at the start and once at the end of each file fetched. */
  readonly onProgress?: (progress: FetchProgress) => void;
  /** One-line warnings: a damaged cached file, a retried fetch. */
  readonly onWarning?: (message: string) => void;
  /** Default {@link DEFAULT_STALL_TIMEOUT_MS}. */
  readonly stallTimeoutMs?: number;
  /** Default {@link DEFAULT_FETCH_RETRIES}. */
  readonly retries?: number;
  /** Default {@link DEFAULT_RETRY_DELAY_MS}. */
  readonly retryDelayMs?: number;
  /** Aborts the fetch (the temp file is removed). */
  readonly signal?: AbortSignal;
}

/** A model whose every file is present and verified. */
export interface CachedModel {
  /** `<dataDir>/models/<model>/<revision>`. */
  readonly dir: string;
  /** Repository paths of the files this call fetched (empty when all were cached). */
  readonly fetched: readonly string[];
}

/** Where a model's files are kept. */
export function modelCacheDir(dataDir: string, spec: LocalModelSpec): string {
  return join(dataDir, 'models', spec.name, spec.revision);
}

/** Where one file of a model is kept. */
export function cachedFilePath(dir: string, file: ModelFile): string {
  return join(dir, ...file.path.split('/'));
}

/** One fetch per model dir at a time in this process: concurrent callers share it. */
const inFlight = new Map<string, Promise<CachedModel>>();

/**
 * Makes sure every file of `spec` is in the cache and verified, fetching
 * what is missing or damaged. Concurrent calls for the same model share one
 * promise (and the first caller's callbacks). Fails with a
 * {@link ModelCacheError}.
 */
export function ensureModel(spec: LocalModelSpec, options: ModelCacheOptions): Promise<CachedModel> {
  const dir = modelCacheDir(options.dataDir, spec);
  const running = inFlight.get(dir);
  if (running !== undefined) return running;
  const promise = fillCache(spec, dir, options).finally(() => inFlight.delete(dir));
  inFlight.set(dir, promise);
  return promise;
}

async function fillCache(spec: LocalModelSpec, dir: string, options: ModelCacheOptions): Promise<CachedModel> {
  const hub = modelHub(options.hub);
  const fetched: string[] = [];
  await removeStaleTemps(dir);
  for (const file of modelFiles(spec)) {
    const dest = cachedFilePath(dir, file);
    const have = await hashIfPresent(dest, file);
    if (have === file.sha256) continue;
    if (have !== undefined) {
      options.onWarning?.(`model ${spec.name}: cached ${file.path} is damaged (sha256 ${have}, expected ${file.sha256}); fetching it again`);
    }
    await io(mkdir(dirname(dest), { recursive: true }), `create ${dirname(dest)}`);
    await fetchWithRetries(spec, file, modelFileUrl(hub, spec, file), dest, options);
    fetched.push(file.path);
  }
  return { dir, fetched };
}

/** The file's SHA-256, or undefined when there is no file. */
async function hashIfPresent(path: string, file: ModelFile): Promise<string | undefined> {
  const hash = createHash('sha256');
  try {
    await pipeline(createReadStream(path), hash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(err, `read cached ${file.path}`);
  }
  return hash.digest('hex');
}

async function fetchWithRetries(spec: LocalModelSpec, file: ModelFile, url: string, dest: string, options: ModelCacheOptions): Promise<void> {
  const retries = options.retries ?? DEFAULT_FETCH_RETRIES;
  const delay = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await fetchOnce(spec, file, url, dest, options);
      return;
    } catch (err) {
      // A stall already cost the stall timeout: it fails now rather than
      // multiplying the wait; the embedder's caller retries later.
      const again = err instanceof ModelCacheError && err.retryable && err.code !== 'MODEL_FETCH_STALLED' && attempt < retries;
      if (!again) throw err;
      const wait = delay * 2 ** attempt;
      options.onWarning?.(`${err.message}; retrying in ${(wait / 1000).toFixed(1)} s (${attempt + 1} of ${retries})`);
      await sleep(wait, options.signal);
    }
  }
}

/** One attempt: stream to a unique temp file, hashing; rename into place if the digest is the pin. */
async function fetchOnce(spec: LocalModelSpec, file: ModelFile, url: string, dest: string, options: ModelCacheOptions): Promise<void> {
  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const temp = `${dest}.${process.pid}-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  if (outer?.aborted === true) controller.abort(outer.reason);
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, stallMs);
  };
  const what = `model ${spec.name}: ${file.path}`;
  try {
    arm();
    const response = await fetch(url, { signal: controller.signal, redirect: 'follow' });
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => {});
      const status = response.status;
      throw new ModelCacheError(`${what}: HTTP ${status} from ${url}`, {
        code: 'MODEL_HTTP_STATUS',
        retryable: status >= 500 || status === 429 || status === 408,
      });
    }
    const total = contentLength(response.headers.get('content-length')) ?? file.bytes;
    const hash = createHash('sha256');
    let done = 0;
    options.onProgress?.({ model: spec.name, file: file.path, done, total });
    const out = await io(open(temp, 'wx', 0o644), `create ${temp}`);
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        arm();
        hash.update(chunk);
        await io(out.write(chunk), `write ${temp}`);
        done += chunk.byteLength;
        options.onProgress?.({ model: spec.name, file: file.path, done, total });
      }
      clearTimeout(timer);
      // On disk before the rename makes it the model: a crash must not leave a short file under the final name.
      await io(out.sync(), `sync ${temp}`);
    } finally {
      await out.close().catch(() => {});
    }
    const got = hash.digest('hex');
    if (got !== file.sha256) {
      throw new ModelCacheError(`${what}: checksum mismatch: expected sha256 ${file.sha256}, got ${got}`, {
        code: 'MODEL_CHECKSUM_MISMATCH',
        retryable: false,
      });
    }
    await io(rename(temp, dest), `rename ${temp}`);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => {});
    if (err instanceof ModelCacheError) throw err;
    if (stalled) {
      throw new ModelCacheError(`${what}: no data from ${originOf(url)} for ${formatSeconds(stallMs)}`, {
        code: 'MODEL_FETCH_STALLED',
        retryable: true,
        cause: err,
      });
    }
    if (outer?.aborted === true) {
      throw new ModelCacheError(`${what}: fetch aborted`, { code: 'MODEL_FETCH_ABORTED', retryable: true, cause: err });
    }
    throw new ModelCacheError(`${what}: fetch from ${originOf(url)} failed: ${networkReason(err)}`, {
      code: 'MODEL_FETCH_FAILED',
      retryable: true,
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/**
 * Removes temp files a killed process left in the model's dir (and its
 * subdirs, where `onnx/…` files go).
 */
async function removeStaleTemps(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return; // No dir yet: nothing left behind.
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.endsWith(TEMP_SUFFIX)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true }).catch(() => {});
  }
}

/** A one-line progress report for a log or a terminal: `fetching bge-small-en-v1.5 onnx/model_quantized.onnx: 12.0 of 34.0 MB (35%)`. */
export function formatFetchProgress(p: FetchProgress): string {
  const mb = (n: number): string => (n / 1_000_000).toFixed(1);
  const head = `fetching ${p.model} ${p.file}: ${mb(p.done)}`;
  if (p.total === undefined || p.total === 0) return `${head} MB`;
  return `${head} of ${mb(p.total)} MB (${Math.floor((100 * p.done) / p.total)}%)`;
}

function contentLength(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** undici's `fetch failed` hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, …). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  const message = typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? message;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

function ioError(err: unknown, action: string): ModelCacheError {
  const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
  return new ModelCacheError(`model cache: cannot ${action}: ${code}`, { code: 'MODEL_CACHE_IO', retryable: false, cause: err });
}

/** Awaits a file-system step, giving its failure the cache's I/O code. */
async function io<T>(step: Promise<T>, action: string): Promise<T> {
  try {
    return await step;
  } catch (err) {
    throw ioError(err, action);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new ModelCacheError('model fetch aborted', { code: 'MODEL_FETCH_ABORTED', retryable: true, cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ModelCacheError('model fetch aborted', { code: 'MODEL_FETCH_ABORTED', retryable: true, cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
