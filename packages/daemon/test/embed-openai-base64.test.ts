// The OpenAI-compatible provider asks for its vectors in base64
// (little-endian float32s, `encoding_format: "base64"`) and reads them bit
// for bit as the same vectors sent as numbers; a server that refuses base64
// (400, 422) or ignores it is asked for numbers from then on, and every
// other refusal (a wrong key, an unknown model) surfaces as itself. Against
// @memoryd/test-support's fake server, and a canned one for answers the
// fake never gives (malformed base64, a 422, a mixed answer).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { cleanupAll, type FakeEmbedder, type FakeEmbedderOptions, hashVector, startFakeEmbedder, trackCloser, withTimeout } from '@memoryd/test-support';
import { EmbedderError } from '../dist/embed/embedder.js';
import { EmbedderHttpError } from '../dist/embed/http-json.js';
import { OpenAiEmbedder } from '../dist/embed/openai-embedder.js';

after(cleanupAll);

const DIMS = 64;
const TEXTS = ['green tea', 'a red car', 'the dentist on March 3rd'];
/** Bound on one embed call here; the provider's own bound is below it. */
const CALL_MS = 10_000;

async function fake(options: FakeEmbedderOptions = {}): Promise<FakeEmbedder> {
  const server = await startFakeEmbedder({ vectors: 'hash', dimensions: DIMS, ...options });
  trackCloser(() => server.close());
  return server;
}

function embedder(url: string, options: { model?: string; key?: string } = {}): OpenAiEmbedder {
  return new OpenAiEmbedder({ url, model: options.model ?? 'fake', timeoutMs: 5_000, key: options.key });
}

/** The vectors the fake serves, as float32s: what the float answer reads to. */
function expected(texts: readonly string[]): Float32Array[] {
  return texts.map((t) => Float32Array.from(hashVector(t, DIMS)));
}

/** A vector's bytes in hex, for comparing bit for bit (NaN and -0 included). */
function bits(vectors: readonly Float32Array[]): string[] {
  return vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex'));
}

/** Float32s as OpenAI's base64 sends them: little-endian. */
function base64Of(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

function embed(e: OpenAiEmbedder, texts: readonly string[] = TEXTS, signal?: AbortSignal): Promise<Float32Array[]> {
  return withTimeout(e.embed(texts, 'document', signal), CALL_MS, 'an embed call');
}

/** The error an embed call fails with: an EmbedderError of one line. */
async function failure(call: Promise<unknown>): Promise<EmbedderError> {
  const err = await withTimeout(
    call.then(
      () => assert.fail('the call succeeded'),
      (e: unknown) => e,
    ),
    CALL_MS,
    'an embed call to fail',
  );
  assert.ok(err instanceof EmbedderError, `an EmbedderError, not ${String(err)}`);
  assert.doesNotMatch(err.message, /\n/);
  return err;
}

/** A server answering /v1/embeddings with what `reply` says; `seen` holds each request's `encoding_format`. */
async function canned(reply: (encoding: unknown) => { status: number; body: unknown }): Promise<{ url: string; seen: unknown[] }> {
  const seen: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const encoding = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { encoding_format?: unknown }).encoding_format;
      seen.push(encoding);
      const { status, body } = reply(encoding);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  trackCloser(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** An OpenAI-shaped answer carrying `embeddings` as given. */
function list(embeddings: unknown[]): { status: number; body: unknown } {
  return { status: 200, body: { object: 'list', data: embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'fake' } };
}

describe('OpenAI provider: base64 vectors', () => {
  it('asks for base64 and reads the same vectors as the float answer, bit for bit', async () => {
    const server = await fake();
    const e = embedder(server.url);
    assert.deepEqual(bits(await embed(e)), bits(expected(TEXTS)));
    assert.deepEqual(bits(await embed(e, ['oat milk'])), bits(expected(['oat milk'])));
    assert.deepEqual(server.encodings, { base64: 2, float: 0, absent: 0 });
  });

  it('falls back to floats when the server refuses base64 (400), and asks for floats from then on', async () => {
    const server = await fake({ base64: 'refused' });
    const e = embedder(server.url);
    assert.deepEqual(bits(await embed(e)), bits(expected(TEXTS)));
    assert.deepEqual(bits(await embed(e, ['oat milk'])), bits(expected(['oat milk'])));
    assert.deepEqual(bits(await embed(e, ['espresso'])), bits(expected(['espresso'])));
    assert.deepEqual(server.encodings, { base64: 1, float: 3, absent: 0 });
    assert.equal(server.requests, 4);
  });

  it('falls back to floats after a 422 too', async () => {
    const vectors = expected(['a', 'b']).map((v) => Array.from(v));
    const server = await canned((encoding) =>
      encoding === 'base64' ? { status: 422, body: { detail: [{ loc: ['body', 'encoding_format'], msg: 'unexpected value' }] } } : list(vectors),
    );
    const e = embedder(server.url);
    assert.deepEqual(bits(await embed(e, ['a', 'b'])), bits(expected(['a', 'b'])));
    assert.deepEqual(bits(await embed(e, ['a', 'b'])), bits(expected(['a', 'b'])));
    assert.deepEqual(server.seen, ['base64', 'float', 'float']);
  });

  it('works with a server that ignores the parameter, and asks for floats from then on', async () => {
    const server = await fake({ base64: 'ignored' });
    const e = embedder(server.url);
    assert.deepEqual(bits(await embed(e)), bits(expected(TEXTS)));
    assert.deepEqual(bits(await embed(e)), bits(expected(TEXTS)));
    assert.deepEqual(server.encodings, { base64: 1, float: 1, absent: 0 });
  });

  it('accepts lists of numbers beside base64 strings in one answer', async () => {
    const [a, b] = expected(['a', 'b']) as [Float32Array, Float32Array];
    const server = await canned(() => list([base64Of(Array.from(a)), Array.from(b)]));
    assert.deepEqual(bits(await embed(embedder(server.url), ['a', 'b'])), bits([a, b]));
    assert.deepEqual(server.seen, ['base64']);
  });

  it('surfaces a wrong key as a 401, with no retry in floats', async () => {
    const server = await fake({ key: 'sk-test' });
    const e = embedder(server.url, { key: 'sk-wrong' });
    for (let call = 1; call <= 2; call++) {
      const err = await failure(e.embed(TEXTS, 'document'));
      assert.ok(err instanceof EmbedderHttpError);
      assert.equal(err.status, 401);
      assert.equal(err.retryable, false);
      assert.deepEqual(server.encodings, { base64: call, float: 0, absent: 0 });
    }
  });

  it('surfaces an unknown model as a 404, with no retry in floats', async () => {
    const server = await fake();
    const err = await failure(embedder(server.url, { model: 'all-minilm' }).embed(TEXTS, 'document'));
    assert.ok(err instanceof EmbedderHttpError);
    assert.equal(err.status, 404);
    assert.deepEqual(server.encodings, { base64: 1, float: 0, absent: 0 });
  });

  it('retries a 400 in floats once, surfaces the second refusal, and asks for base64 again next time', async () => {
    const server = await canned(() => ({ status: 400, body: { error: { message: 'input is too long', type: 'invalid_request_error', param: 'input', code: null } } }));
    const e = embedder(server.url);
    for (let call = 1; call <= 2; call++) {
      const err = await failure(e.embed(TEXTS, 'document'));
      assert.ok(err instanceof EmbedderHttpError);
      assert.equal(err.status, 400);
      assert.equal(err.retryable, false);
    }
    assert.deepEqual(server.seen, ['base64', 'float', 'base64', 'float']);
  });

  it('fails in one line on a malformed base64 answer, and does not fall back', async () => {
    const two = expected(['a', 'b']).map((v) => base64Of(Array.from(v)));
    const cases: Array<{ what: string; texts: number; embeddings: unknown[] }> = [
      { what: 'not base64', texts: 1, embeddings: ['not base64!'] },
      { what: 'base64 with a dangling digit', texts: 1, embeddings: ['AAAAA'] },
      { what: 'misplaced padding', texts: 1, embeddings: ['AA=A'] },
      { what: 'empty', texts: 1, embeddings: [''] },
      { what: 'six bytes', texts: 1, embeddings: [Buffer.alloc(6).toString('base64')] },
      { what: 'a NaN', texts: 1, embeddings: [base64Of([0.5, Number.NaN, 0.25])] },
      { what: 'an infinity', texts: 1, embeddings: [base64Of([0.5, Number.POSITIVE_INFINITY])] },
      { what: 'vectors of two lengths', texts: 2, embeddings: [base64Of([0.5, 0.5]), base64Of([0.5, 0.5, 0.5])] },
      { what: 'one vector for two texts', texts: 2, embeddings: [two[0]] },
      { what: 'neither a string nor numbers', texts: 1, embeddings: [{ values: [0.5] }] },
    ];
    let current = cases[0]!;
    const server = await canned(() => list(current.embeddings));
    const e = embedder(server.url);
    for (const c of cases) {
      current = c;
      const err = await failure(e.embed(['a', 'b'].slice(0, c.texts), 'document'));
      assert.ok(!(err instanceof EmbedderHttpError), c.what);
      assert.equal(err.retryable, true, c.what);
    }
    assert.deepEqual(server.seen, cases.map(() => 'base64'));
    // Still asking for base64, and reading it.
    current = { what: 'well formed', texts: 2, embeddings: two };
    assert.deepEqual(bits(await embed(e, ['a', 'b'])), bits(expected(['a', 'b'])));
    assert.equal(server.seen.at(-1), 'base64');
  });

  it('honours an abort signal, in the base64 request and in the float retry', async () => {
    const hung = await fake({ mode: 'hang' });
    const controller = new AbortController();
    const call = embedder(hung.url).embed(TEXTS, 'document', controller.signal);
    setTimeout(() => controller.abort(), 100);
    const err = await failure(call);
    assert.equal((err.cause as Error | undefined)?.name, 'AbortError');
    assert.deepEqual(hung.encodings, { base64: 1, float: 0, absent: 0 });

    const early = await failure(embedder(hung.url).embed(TEXTS, 'document', AbortSignal.abort()));
    assert.equal((early.cause as Error | undefined)?.name, 'AbortError');

    // Refused at once, then a slow float answer: the abort ends the retry,
    // and base64 is not given up on a retry that did not succeed.
    const slow = await fake({ base64: 'refused', mode: 'slow', slowMs: 30_000 });
    const e = embedder(slow.url);
    const retry = new AbortController();
    const retried = e.embed(TEXTS, 'document', retry.signal);
    setTimeout(() => retry.abort(), 100);
    const cancelled = await failure(retried);
    assert.equal((cancelled.cause as Error | undefined)?.name, 'AbortError');
    assert.deepEqual(slow.encodings, { base64: 1, float: 1, absent: 0 });
    slow.setMode('ok');
    assert.deepEqual(bits(await embed(e)), bits(expected(TEXTS)));
    assert.deepEqual(slow.encodings, { base64: 2, float: 2, absent: 0 });
  });
});
