import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GLOVE_DIMENSIONS, hashVector, loadGlove, meaningVector, meaningWords } from './meaning-vectors.js';

// Meaning search without a model server: an embedding server on 127.0.0.1
// that speaks both Ollama's and the OpenAI-compatible API, whose vectors
// either carry meaning (GloVe word vectors averaged, meaning-vectors.ts)
// or are hash noise of any size. Test code only, like the rest of this
// package.

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
  /** `glove` (100 dimensions, with meaning; the default) or `hash` (noise of `dimensions`). */
  vectors?: 'glove' | 'hash';
  /** Dimensions of `hash` vectors; 384 by default (a MiniLM- or bge-small-sized model). */
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
 * daemon's real HTTP providers, with no network and no model. Loads the
 * GloVe fixture first when asked for `glove` vectors.
 */
export async function startFakeEmbedder(options: FakeEmbedderOptions = {}): Promise<FakeEmbedder> {
  const kind = options.vectors ?? 'glove';
  if (kind === 'glove') await loadGlove();
  const dims = kind === 'glove' ? GLOVE_DIMENSIONS : (options.dimensions ?? 384);
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
    return kind === 'glove' ? meaningVector(plain, size) : hashVector(plain, size);
  };

  const answer = (api: Api, model: string, inputs: string[], inBase64: boolean, res: http.ServerResponse) => {
    let vectors: number[][];
    try {
      vectors = inputs.map((t) => vectorOf(t, mode === 'wrong-dimension' ? dims + 1 : dims));
    } catch (err) {
      // A word the GloVe fixture lacks: the daemon reports the message, the test process does not crash.
      res.writeHead(500, { 'content-type': 'application/json' }).end(errorBody(api, (err as Error).message, 'server_error'));
      return;
    }
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
