import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Api, base64Of, encodingOf, errorBody, type Input, parseInput } from './fake-embedder-wire.js';
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
  /**
   * How many requests (either endpoint) listed exactly `text` among their
   * inputs, compared after the task prefix (`search_query: ` and the like)
   * is cut, whatever the answer: embedded, refused, failed or hung. A
   * request that lists it twice counts once. 0 proves the provider was
   * never asked for it (a search served without it, say).
   */
  asked(text: string): number;
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

/**
 * Starts a fake embedding server on 127.0.0.1 (a free port) answering
 * Ollama's `POST /api/embed` and the OpenAI-compatible `POST
 * /v1/embeddings`, so tests run meaning search end to end, through the
 * daemon's real HTTP providers, with no network and no model. Loads the
 * GloVe fixture first when asked for `glove` vectors.
 */
export async function startFakeEmbedder(options: FakeEmbedderOptions = {}): Promise<FakeEmbedder> {
  if ((options.vectors ?? 'glove') === 'glove') await loadGlove();
  const server = new FakeEmbeddingServer(options);
  await server.listen();
  return server;
}

/** An answer other than vectors: its HTTP status and JSON body. */
interface Refusal {
  status: number;
  body: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The server behind {@link startFakeEmbedder}. */
class FakeEmbeddingServer implements FakeEmbedder {
  url = '';
  readonly #kind: 'glove' | 'hash';
  readonly #dims: number;
  readonly #key: string | undefined;
  readonly #models: ReadonlySet<string>;
  readonly #slowMs: number;
  readonly #base64: FakeEmbedderBase64;
  #mode: FakeEmbedderMode;
  #requests = 0;
  #texts = 0;
  readonly #encodings: FakeEmbedderEncodings = { base64: 0, float: 0, absent: 0 };
  /** Requests by input text, prefix cut (see {@link FakeEmbedder.asked}). */
  readonly #asked = new Map<string, number>();
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #server = http.createServer((req, res) => this.#route(req, res));
  #closing: Promise<void> | undefined;

  constructor(options: FakeEmbedderOptions) {
    this.#kind = options.vectors ?? 'glove';
    this.#dims = this.#kind === 'glove' ? GLOVE_DIMENSIONS : (options.dimensions ?? 384);
    this.#key = options.key;
    this.#models = new Set(options.models ?? FAKE_EMBEDDER_MODELS);
    this.#slowMs = options.slowMs ?? 2_000;
    this.#base64 = options.base64 ?? 'supported';
    this.#mode = options.mode ?? 'ok';
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get requests(): number {
    return this.#requests;
  }

  get texts(): number {
    return this.#texts;
  }

  get encodings(): Readonly<FakeEmbedderEncodings> {
    return { ...this.#encodings };
  }

  asked(text: string): number {
    return this.#asked.get(text.replace(TASK_PREFIX, '')) ?? 0;
  }

  get mode(): FakeEmbedderMode {
    return this.#mode;
  }

  setMode(next: FakeEmbedderMode): void {
    this.#mode = next;
  }

  /** Listens on a free port of 127.0.0.1 and sets `url`. */
  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      this.#server.close(() => resolve());
      // Keep-alive and hung connections would hold close() open forever.
      for (const socket of this.#sockets) socket.destroy();
    });
    return this.#closing;
  }

  /** The two endpoints, POST only; anything else gets Ollama's 404. */
  #route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const api: Api | undefined = req.url === '/api/embed' ? 'ollama' : req.url === '/v1/embeddings' ? 'openai' : undefined;
    if (api === undefined || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.#handle(api, req, Buffer.concat(chunks).toString('utf8'), res));
  }

  /** Counts the request, then refuses it or answers as the mode says. */
  #handle(api: Api, req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    this.#requests++;
    const encoding = api === 'openai' ? encodingOf(body) : undefined;
    if (api === 'openai') this.#countEncoding(encoding);
    const input = parseInput(body);
    if (typeof input !== 'string') this.#countAsked(input.texts);
    const refusal = this.#refusal(api, req, encoding, input);
    if (refusal !== undefined) res.writeHead(refusal.status, JSON_TYPE).end(refusal.body);
    // #refusal refuses every body without an input.
    else this.#respond(api, input as Input, encoding === 'base64' && this.#base64 === 'supported', res);
  }

  #countEncoding(encoding: unknown): void {
    if (encoding === undefined) this.#encodings.absent++;
    else if (encoding === 'base64' || encoding === 'float') this.#encodings[encoding]++;
  }

  #countAsked(texts: readonly string[]): void {
    for (const text of new Set(texts.map((t) => t.replace(TASK_PREFIX, '')))) this.#asked.set(text, (this.#asked.get(text) ?? 0) + 1);
  }

  /** Why the request gets no vectors whatever the mode, checked in the order a real server does: key, body, encoding, model. */
  #refusal(api: Api, req: http.IncomingMessage, encoding: unknown, input: Input | string): Refusal | undefined {
    if (api === 'openai' && this.#key !== undefined && req.headers.authorization !== `Bearer ${this.#key}`) {
      return { status: 401, body: errorBody(api, 'Incorrect API key provided.', 'invalid_request_error') };
    }
    if (typeof input === 'string') return { status: 400, body: errorBody(api, input, 'invalid_request_error') };
    if (encoding !== undefined && encoding !== 'float' && encoding !== 'base64') {
      return { status: 400, body: errorBody(api, `'${String(encoding)}' is not one of ['float', 'base64'] - 'encoding_format'`, 'invalid_request_error', 'encoding_format') };
    }
    if (encoding === 'base64' && this.#base64 === 'refused') {
      return { status: 400, body: errorBody(api, "encoding_format 'base64' is not supported", 'invalid_request_error', 'encoding_format') };
    }
    if (!this.#models.has(input.model)) {
      // Ollama's words for a model not pulled; OpenAI-compatible servers say much the same.
      return { status: 404, body: errorBody(api, `model "${input.model}" not found, try pulling it first`, 'not_found_error') };
    }
    return undefined;
  }

  /** Answers an accepted request as the mode says. */
  #respond(api: Api, input: Input, inBase64: boolean, res: http.ServerResponse): void {
    switch (this.#mode) {
      case 'down':
        res.writeHead(503, JSON_TYPE).end(errorBody(api, 'service unavailable', 'server_error'));
        return;
      case 'hang':
        return; // close() destroys the socket
      case 'garbage':
        res.writeHead(200, JSON_TYPE).end('<html>502 Bad Gateway</html>');
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          this.#answer(api, input, inBase64, res);
        }, this.#slowMs);
        this.#timers.add(timer);
        return;
      }
      default:
        this.#answer(api, input, inBase64, res);
    }
  }

  /** The vectors, in the API's shape; a 500 when one cannot be made. */
  #answer(api: Api, input: Input, inBase64: boolean, res: http.ServerResponse): void {
    let vectors: number[][];
    try {
      vectors = input.texts.map((t) => this.#vectorOf(t, this.#mode === 'wrong-dimension' ? this.#dims + 1 : this.#dims));
    } catch (err) {
      // A word the GloVe fixture lacks: the daemon reports the message, the test process does not crash.
      res.writeHead(500, JSON_TYPE).end(errorBody(api, (err as Error).message, 'server_error'));
      return;
    }
    this.#texts += input.texts.length;
    const tokens = input.texts.reduce((n, t) => n + meaningWords(t).length, 0);
    const body = api === 'ollama'
      ? { model: input.model, embeddings: vectors }
      : {
          object: 'list',
          data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: inBase64 ? base64Of(v) : v })),
          model: input.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        };
    res.writeHead(200, JSON_TYPE).end(JSON.stringify(body));
  }

  #vectorOf(text: string, size: number): number[] {
    const plain = text.replace(TASK_PREFIX, '');
    return this.#kind === 'glove' ? meaningVector(plain, size) : hashVector(plain, size);
  }
}
