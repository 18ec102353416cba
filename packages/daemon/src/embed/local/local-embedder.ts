/**
 * The `local` embedder: a sentence-embedding model run inside the daemon
 * with onnxruntime-node, its text split by @huggingface/tokenizers.
 *
 * Those two packages (~290 MB, most of it onnxruntime's native library) are
 * optional peers of @memoryd/daemon, not dependencies: a daemon that never
 * runs `--embedder local` never installs them. They are loaded with a
 * dynamic import() on first use, before any model is fetched; when missing,
 * the embedder fails with one line saying what to install and where
 * ({@link runtimeInstallHint}). The specifiers reach import() through a
 * parameter so the release's bundler (scripts/bundle-daemon.mjs) cannot see
 * them, leaves them to Node's resolution at run time, and the release's
 * manifest does not pick them up as dependencies.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { firstLine } from '../../errors.js';
import { type EmbedPurpose, type Embedder, EmbedderError } from '../embedder.js';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, type LocalModelSpec, findLocalModel, invalidModelSpec } from './local-models.js';
import { ModelCacheError, type ModelCacheOptions, cachedFilePath, ensureModel } from './model-cache.js';

/** The onnxruntime-node the daemon is tested with; the root package.json pins the same. */
export const ONNXRUNTIME_NODE_VERSION = '1.30.0';
/** The @huggingface/tokenizers the daemon is tested with; the root package.json pins the same. */
export const TOKENIZERS_VERSION = '0.2.0';

const ORT_PACKAGE = 'onnxruntime-node';
const TOKENIZERS_PACKAGE = '@huggingface/tokenizers';

/** The most texts one session run takes. */
export const LOCAL_MAX_BATCH = 32;

// The parts of the two packages' APIs used here, written out so the daemon
// compiles without them installed (they are optional peers).

interface Encoding {
  ids: number[];
  attention_mask: number[];
  token_type_ids?: number[];
}
interface TokenizerInstance {
  encode(text: string, options: { add_special_tokens: boolean; return_token_type_ids?: boolean }): Encoding;
  token_to_id(token: string): number | undefined;
}
interface TokenizersModule {
  Tokenizer: new (tokenizerJson: object, tokenizerConfig: object) => TokenizerInstance;
}
interface OrtTensor {
  readonly type: string;
  readonly data: unknown;
  readonly dims: readonly number[];
}
interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor | undefined>>;
  release(): Promise<void>;
}
interface OrtModule {
  InferenceSession: { create(path: string, options: object): Promise<OrtSession> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => OrtTensor;
}

/** Loads a package by name; the default is Node's import(). Tests inject a failing one. */
export type ModuleLoader = (specifier: string) => Promise<unknown>;

const importModule: ModuleLoader = (specifier) => import(specifier);

/** How {@link createLocalEmbedder} finds, fetches and runs its model. */
/** The model cache's options (model-cache.ts) say where the model is kept and fetched from, and how patiently. */
export interface LocalEmbedderOptions extends Omit<ModelCacheOptions, 'signal'> {
  /** A model of {@link LOCAL_MODELS} by name, or a spec of one's own (tests); default {@link DEFAULT_LOCAL_MODEL}. */
  readonly model?: string | LocalModelSpec;
  /** Threads one run may use; default half the cores, 1 to 4. */
  readonly threads?: number;
  /** How the two optional packages are loaded (default import()). */
  readonly loadModule?: ModuleLoader;
  /** Where this code runs from, for the install hint (default this module's URL). */
  readonly moduleUrl?: string;
}

/** What a ready embedder holds. */
interface Runtime {
  readonly ort: OrtModule;
  readonly tokenizer: TokenizerInstance;
  readonly session: OrtSession;
  readonly padId: number;
  readonly output: string;
}

/**
 * Creates the local embedder. Nothing is loaded or fetched until
 * {@link LocalEmbedder.prepare} or the first embed(). Throws an
 * {@link EmbedderError} for an unknown model name or an unusable spec.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions): LocalEmbedder {
  const requested = options.model ?? DEFAULT_LOCAL_MODEL;
  const spec = typeof requested === 'string' ? findLocalModel(requested) : requested;
  if (spec === undefined) {
    const known = LOCAL_MODELS.map((m) => m.name).join(', ');
    throw new EmbedderError(`local embedder: unknown model ${JSON.stringify(requested)} (supported: ${known})`, { retryable: false });
  }
  const invalid = invalidModelSpec(spec);
  if (invalid !== undefined) throw new EmbedderError(`local embedder: ${invalid}`, { retryable: false });
  return new LocalEmbedder(spec, options);
}

/** The `local` provider: kind `local`, space `local:<model>@<revision>`, at most 32 texts a run. */
export class LocalEmbedder implements Embedder {
  readonly kind = 'local' as const;
  readonly model: string;
  readonly space: string;
  readonly maxBatch = LOCAL_MAX_BATCH;
  readonly spec: LocalModelSpec;
  readonly #options: LocalEmbedderOptions;
  #ready: Promise<Runtime> | undefined;
  #closed = false;
  /** Ends a fetch of the model in flight when the embedder closes (the daemon stops). */
  readonly #closing = new AbortController();

  constructor(spec: LocalModelSpec, options: LocalEmbedderOptions) {
    this.spec = spec;
    this.model = spec.name;
    this.space = `local:${spec.name}@${spec.revision}`;
    this.#options = options;
  }

  /**
   * Loads the runtime, fetches the model if it is not cached, and opens a
   * session; idempotent. A failure is not kept: the next call tries again.
   */
  async prepare(): Promise<void> {
    await this.#runtime();
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // The first call may wait for the model's fetch: the caller's signal ends the wait.
    const runtime = await untilAborted(this.#runtime(), signal);
    const prefix = purpose === 'query' ? this.spec.queryPrefix : this.spec.documentPrefix;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.maxBatch) {
      throwIfAborted(signal);
      const batch = texts.slice(start, start + this.maxBatch).map((t) => prefix + t);
      vectors.push(...(await this.#run(runtime, batch)));
    }
    return vectors;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new Error('the local embedder is closing'));
    const ready = this.#ready;
    this.#ready = undefined;
    const runtime = await ready?.catch(() => undefined);
    await runtime?.session.release().catch(() => {});
  }

  #runtime(): Promise<Runtime> {
    if (this.#closed) return Promise.reject(new EmbedderError('local embedder: closed', { retryable: false }));
    if (this.#ready === undefined) {
      const ready = this.#load();
      this.#ready = ready;
      ready.catch(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
    }
    return this.#ready;
  }

  async #load(): Promise<Runtime> {
    const spec = this.spec;
    const options = this.#options;
    // The runtime first: a missing package fails in a moment, not after a 34 MB fetch.
    const { ort, tokenizers } = await loadRuntime(options.loadModule ?? importModule, options.moduleUrl ?? import.meta.url);
    let dir: string;
    try {
      ({ dir } = await ensureModel(spec, {
        dataDir: options.dataDir,
        ...(options.hub === undefined ? {} : { hub: options.hub }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
        ...(options.stallTimeoutMs === undefined ? {} : { stallTimeoutMs: options.stallTimeoutMs }),
        ...(options.retries === undefined ? {} : { retries: options.retries }),
        ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
        signal: this.#closing.signal,
      }));
    } catch (err) {
      if (err instanceof ModelCacheError) throw new EmbedderError(`local embedder: ${err.message}`, { retryable: err.retryable, cause: err });
      throw err;
    }
    let tokenizer: TokenizerInstance;
    try {
      const json = JSON.parse(await readFile(cachedFilePath(dir, spec.files.tokenizer), 'utf8')) as object;
      const config = JSON.parse(await readFile(cachedFilePath(dir, spec.files.tokenizerConfig), 'utf8')) as object;
      tokenizer = new tokenizers.Tokenizer(json, config);
    } catch (err) {
      throw new EmbedderError(`local embedder: model ${spec.name}: cannot load its tokenizer: ${firstLine(err)}`, { retryable: false, cause: err });
    }
    let session: OrtSession;
    try {
      const threads = this.#options.threads ?? Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
      session = await ort.InferenceSession.create(cachedFilePath(dir, spec.files.model), {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
      });
    } catch (err) {
      throw new EmbedderError(`local embedder: model ${spec.name}: onnxruntime cannot open it: ${firstLine(err)}`, { retryable: false, cause: err });
    }
    const missing = ['input_ids', 'attention_mask'].filter((name) => !session.inputNames.includes(name));
    const output = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0];
    if (missing.length > 0 || output === undefined) {
      await session.release().catch(() => {});
      throw new EmbedderError(`local embedder: model ${spec.name} has no ${missing.length > 0 ? missing.join(' or ') : 'output'}`, { retryable: false });
    }
    return { ort, tokenizer, session, padId: padTokenId(tokenizer), output };
  }

  /** One session run over at most maxBatch texts. */
  async #run(runtime: Runtime, texts: readonly string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => encode(runtime.tokenizer, t, this.spec.maxTokens));
    // Padded to the longest text of this batch, not to maxTokens: attention is quadratic in the length.
    const length = Math.max(...encoded.map((e) => e.ids.length));
    const size = texts.length * length;
    const inputIds = new BigInt64Array(size).fill(BigInt(runtime.padId));
    const attentionMask = new BigInt64Array(size);
    const tokenTypeIds = new BigInt64Array(size);
    encoded.forEach((e, row) => {
      for (let i = 0; i < e.ids.length; i++) {
        inputIds[row * length + i] = BigInt(e.ids[i] ?? runtime.padId);
        attentionMask[row * length + i] = 1n;
        tokenTypeIds[row * length + i] = BigInt(e.typeIds[i] ?? 0);
      }
    });
    const dims = [texts.length, length];
    const available: Record<string, BigInt64Array> = { input_ids: inputIds, attention_mask: attentionMask, token_type_ids: tokenTypeIds };
    // Only what the graph declares: onnxruntime refuses an input it does not know.
    const feeds: Record<string, OrtTensor> = {};
    for (const name of runtime.session.inputNames) {
      const data = available[name];
      if (data === undefined) throw new EmbedderError(`local embedder: model ${this.spec.name} wants an input ${name} this embedder does not make`, { retryable: false });
      feeds[name] = new runtime.ort.Tensor('int64', data, dims);
    }
    let result: Record<string, OrtTensor | undefined>;
    try {
      result = await runtime.session.run(feeds);
    } catch (err) {
      throw new EmbedderError(`local embedder: model ${this.spec.name}: inference failed: ${firstLine(err)}`, { retryable: false, cause: err });
    }
    const out = result[runtime.output];
    if (out === undefined || !(out.data instanceof Float32Array)) {
      throw new EmbedderError(`local embedder: model ${this.spec.name} gave no float32 ${runtime.output}`, { retryable: false });
    }
    return pool(out.data, out.dims, attentionMask, this.spec);
  }
}

/** Token ids and type ids of one text, truncated to `maxTokens` with its special tokens kept. */
interface Encoded {
  ids: number[];
  typeIds: number[];
}

/**
 * Tokenizes with the model's special tokens. @huggingface/tokenizers has no
 * truncation, so a text over `maxTokens` is cut here: its own tokens are
 * shortened and the special tokens around them ([CLS] … [SEP]) kept, as the
 * Rust tokenizers' truncation does.
 */
function encode(tokenizer: TokenizerInstance, text: string, maxTokens: number): Encoded {
  const full = tokenizer.encode(text, { add_special_tokens: true, return_token_type_ids: true });
  const typeIds = full.token_type_ids ?? full.ids.map(() => 0);
  if (full.ids.length <= maxTokens) return { ids: full.ids, typeIds };
  const bare = tokenizer.encode(text, { add_special_tokens: false }).ids;
  const specials = full.ids.length - bare.length;
  const keep = maxTokens - specials;
  const head = keep > 0 ? findRun(full.ids, bare) : -1;
  if (head < 0) {
    // An unusual template: keep the start and the final (closing) token.
    const ids = [...full.ids.slice(0, maxTokens - 1), full.ids[full.ids.length - 1] ?? 0];
    return { ids, typeIds: [...typeIds.slice(0, maxTokens - 1), typeIds[typeIds.length - 1] ?? 0] };
  }
  const cut = <T>(xs: readonly T[]): T[] => [...xs.slice(0, head + keep), ...xs.slice(head + bare.length)];
  return { ids: cut(full.ids), typeIds: cut(typeIds) };
}

/** Where `run` starts inside `ids`, or -1. */
function findRun(ids: readonly number[], run: readonly number[]): number {
  for (let start = 0; start + run.length <= ids.length; start++) {
    let i = 0;
    while (i < run.length && ids[start + i] === run[i]) i++;
    if (i === run.length) return start;
  }
  return -1;
}

/** The padding id: any id works under a zero mask, but the tokenizer's own is the honest one. */
function padTokenId(tokenizer: TokenizerInstance): number {
  for (const token of ['[PAD]', '<pad>']) {
    const id = tokenizer.token_to_id(token);
    if (id !== undefined) return id;
  }
  return 0;
}

/**
 * Sentence vectors from the model's output: `[batch, tokens, dims]` pooled
 * (mean under the attention mask, or the first token), or `[batch, dims]`
 * taken as it is; then L2-normalised when the model says so.
 */
function pool(data: Float32Array, dims: readonly number[], mask: BigInt64Array, spec: LocalModelSpec): Float32Array[] {
  const [batch = 0, second = 0, third] = dims;
  const width = third ?? second;
  const tokens = third === undefined ? 1 : second;
  if (width !== spec.dimensions) {
    throw new EmbedderError(`local embedder: model ${spec.name} gives ${width} dimensions, its table says ${spec.dimensions}`, { retryable: false });
  }
  const vectors: Float32Array[] = [];
  for (let row = 0; row < batch; row++) {
    const v = new Float32Array(width);
    const base = row * tokens * width;
    if (third === undefined || spec.pooling === 'cls') {
      v.set(data.subarray(base, base + width));
    } else {
      let counted = 0;
      for (let t = 0; t < tokens; t++) {
        if (mask[row * tokens + t] !== 1n) continue;
        counted++;
        const at = base + t * width;
        for (let j = 0; j < width; j++) v[j] = (v[j] ?? 0) + (data[at + j] ?? 0);
      }
      if (counted > 0) for (let j = 0; j < width; j++) v[j] = (v[j] ?? 0) / counted;
    }
    if (spec.normalize) normalize(v);
    vectors.push(v);
  }
  return vectors;
}

function normalize(v: Float32Array): void {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let j = 0; j < v.length; j++) v[j] = (v[j] ?? 0) / norm;
}

/** Loads both optional packages, or fails with one line saying how to install them. */
async function loadRuntime(load: ModuleLoader, moduleUrl: string): Promise<{ ort: OrtModule; tokenizers: TokenizersModule }> {
  const [ort, tokenizers] = await Promise.allSettled([load(ORT_PACKAGE), load(TOKENIZERS_PACKAGE)]);
  const absent: string[] = [];
  let broken: { name: string; err: unknown } | undefined;
  for (const [name, result] of [
    [ORT_PACKAGE, ort],
    [TOKENIZERS_PACKAGE, tokenizers],
  ] as const) {
    if (result.status === 'fulfilled') continue;
    if (isNotFound(result.reason, name)) absent.push(name);
    else broken ??= { name, err: result.reason };
  }
  if (absent.length > 0) {
    throw new EmbedderError(`local embedder: ${absent.join(' and ')} ${absent.length > 1 ? 'are' : 'is'} not installed; ${runtimeInstallHint(moduleUrl)}`, {
      retryable: false,
      cause: ort.status === 'rejected' ? ort.reason : tokenizers.status === 'rejected' ? tokenizers.reason : undefined,
    });
  }
  if (broken !== undefined) {
    throw new EmbedderError(`local embedder: ${broken.name} failed to load: ${firstLine(broken.err)}; ${runtimeInstallHint(moduleUrl)}`, {
      retryable: false,
      cause: broken.err,
    });
  }
  const ortModule = namespaceWith<OrtModule>(ort.status === 'fulfilled' ? ort.value : undefined, 'InferenceSession');
  const tokenizersModule = namespaceWith<TokenizersModule>(tokenizers.status === 'fulfilled' ? tokenizers.value : undefined, 'Tokenizer');
  if (ortModule === undefined || tokenizersModule === undefined) {
    const name = ortModule === undefined ? ORT_PACKAGE : TOKENIZERS_PACKAGE;
    throw new EmbedderError(`local embedder: ${name} does not have the expected API; ${runtimeInstallHint(moduleUrl)}`, { retryable: false });
  }
  return { ort: ortModule, tokenizers: tokenizersModule };
}

/** The namespace itself, or its `default` (a CommonJS module through import(), or a bundle's require()), that has `key`. */
function namespaceWith<T>(mod: unknown, key: string): T | undefined {
  if (typeof mod !== 'object' || mod === null) return undefined;
  if (key in mod) return mod as T;
  const fallback = (mod as { default?: unknown }).default;
  return typeof fallback === 'object' && fallback !== null && key in fallback ? (fallback as T) : undefined;
}

/** A resolution failure of `name` itself (ESM or CommonJS), not of something it loads. */
function isNotFound(err: unknown, name: string): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = err instanceof Error ? err.message : '';
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}

/**
 * What to run so that this daemon's import() finds the two packages.
 * Node looks for a package in `node_modules` of each directory above the
 * importing file, so packages installed beside the one memoryd is in are
 * found: a global install of the memoryd tarball lives in
 * `<prefix>/lib/node_modules/memoryd/`, and `npm install --global` with the
 * same prefix puts the packages in `<prefix>/lib/node_modules/` (the prefix
 * is named, as another Node version's npm, under nvm, has another). A
 * project dependency gets them in its project; a checkout has them as the
 * root's devDependencies. `ONNXRUNTIME_NODE_INSTALL=skip` stops
 * onnxruntime-node's install script fetching CUDA libraries from NuGet
 * (Linux x64), which the CPU session here does not use and which fails
 * offline; the variable rather than npm's `--onnxruntime-node-install=skip`,
 * which npm 11 warns it will stop passing on.
 */
export function runtimeInstallHint(moduleUrl: string): string {
  const npm = 'ONNXRUNTIME_NODE_INSTALL=skip npm install';
  const packages = `${ORT_PACKAGE}@${ONNXRUNTIME_NODE_VERSION} ${TOKENIZERS_PACKAGE}@${TOKENIZERS_VERSION}`;
  let path: string;
  try {
    path = moduleUrl.startsWith('file:') ? fileURLToPath(moduleUrl) : moduleUrl;
  } catch {
    path = moduleUrl;
  }
  const posix = path.replaceAll('\\', '/');
  const at = posix.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const owner = posix.slice(0, at);
    if (owner.endsWith('/lib')) return `install them beside memoryd with: ${npm} --global --prefix ${owner.slice(0, -'/lib'.length) || '/'} ${packages}`;
    return `install them with: ${npm} --prefix ${owner} ${packages}`;
  }
  const checkout = posix.lastIndexOf('/packages/daemon/');
  if (checkout >= 0) return `the checkout's devDependencies carry them: run npm install in ${posix.slice(0, checkout) || '/'}`;
  return `install them where Node resolves packages for memoryd, e.g. ${npm} --global ${packages}`;
}

/** `work`'s result, or an aborted EmbedderError as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  throwIfAborted(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new EmbedderError('local embedder: aborted', { retryable: true, cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new EmbedderError('local embedder: aborted', { retryable: true, cause: signal.reason });
}

