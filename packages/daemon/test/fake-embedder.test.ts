// The fake embedding server the meaning-search tests run against
// (@memoryd/test-support's fake-embedder.ts): both APIs' shapes, the key,
// base64 vectors (served, refused, ignored), every failure mode, and that
// its GloVe vectors carry meaning, so a test that fails because of the
// fake is told so here and not by a fused search.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  cleanupAll,
  type FakeEmbedder,
  type FakeEmbedderOptions,
  hashVector,
  loadGlove,
  meaningVector,
  startFakeEmbedder,
  trackCloser,
  withTimeout,
} from '@memoryd/test-support';

after(cleanupAll);

/** Cosine of two unit vectors. */
function cosine(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

function length(v: readonly number[]): number {
  return Math.sqrt(cosine(v, v));
}

/** A fake embedder closed at the end of the file (or by the test). */
async function start(options: FakeEmbedderOptions = {}): Promise<FakeEmbedder & { stop: () => Promise<void> }> {
  const server = await startFakeEmbedder(options);
  return Object.assign(server, { stop: trackCloser(() => server.close()) });
}

/** POSTs JSON; the status and the body, parsed when it is JSON. */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

describe('meaning vectors', () => {
  before(loadGlove);

  it('put a paraphrase nearer its fact than an unrelated fact', () => {
    const query = meaningVector('favourite beverage');
    const near = cosine(query, meaningVector('Maya prefers tea over coffee'));
    const far = cosine(query, meaningVector('The car inspection is due in March'));
    assert.ok(near > far + 0.1, `tea ${near.toFixed(3)} vs car ${far.toFixed(3)}`);
  });

  it('are unit vectors of the dimensions asked, the same for the same text', () => {
    const v = meaningVector('Maya runs 5 km three mornings a week');
    assert.equal(v.length, 100);
    assert.ok(Math.abs(length(v) - 1) < 1e-9);
    assert.deepEqual(meaningVector('Maya runs 5 km three mornings a week'), v);
    assert.equal(meaningVector('oat milk', 101).length, 101);
    assert.ok(Math.abs(length(meaningVector('oat milk', 64)) - 1) < 1e-9);
  });

  it('fall back to hash noise for a text with no known word', () => {
    assert.deepEqual(meaningVector('qzxvbnq-wplk'), hashVector('qzxvbnq-wplk', 100));
    assert.deepEqual(meaningVector('the of and'), hashVector('the of and', 100));
  });

  it('hashVector is deterministic, unit length, any size', () => {
    const v = hashVector('some fact', 384);
    assert.equal(v.length, 384);
    assert.ok(Math.abs(length(v) - 1) < 1e-9);
    assert.deepEqual(hashVector('some fact', 384), v);
    assert.notDeepEqual(hashVector('other fact', 384), v);
  });
});

describe('fake embedder over HTTP', () => {
  it('answers Ollama /api/embed with one vector per input, a string or a list', async () => {
    const fake = await start();
    const one = await post(`${fake.url}/api/embed`, { model: 'nomic-embed-text', input: 'green tea' });
    assert.equal(one.status, 200);
    const { model, embeddings } = one.body as { model: string; embeddings: number[][] };
    assert.equal(model, 'nomic-embed-text');
    assert.equal(embeddings.length, 1);
    assert.deepEqual(embeddings[0], meaningVector('green tea'));
    const many = await post(`${fake.url}/api/embed`, { model: 'fake', input: ['green tea', 'a red car', 'espresso'] });
    assert.equal((many.body as { embeddings: number[][] }).embeddings.length, 3);
    assert.equal(fake.requests, 2);
    assert.equal(fake.texts, 4);
  });

  it('embeds the text without the task prefix the daemon adds for nomic-embed-text', async () => {
    const fake = await start();
    const res = await post(`${fake.url}/api/embed`, { model: 'nomic-embed-text', input: ['search_query: green tea', 'search_document: green tea'] });
    const { embeddings } = res.body as { embeddings: number[][] };
    assert.deepEqual(embeddings[0], meaningVector('green tea'));
    assert.deepEqual(embeddings[1], meaningVector('green tea'));
  });

  it('answers OpenAI /v1/embeddings in its list shape, and wants the key when it has one', async () => {
    const fake = await start({ key: 'sk-test' });
    const url = `${fake.url}/v1/embeddings`;
    const missing = await post(url, { model: 'text-embedding-3-small', input: 'tea' });
    assert.equal(missing.status, 401);
    assert.equal(typeof (missing.body as { error: { message: unknown } }).error.message, 'string');
    const wrong = await post(url, { model: 'text-embedding-3-small', input: 'tea' }, { authorization: 'Bearer sk-other' });
    assert.equal(wrong.status, 401);
    const ok = await post(url, { model: 'text-embedding-3-small', input: ['tea', 'coffee'] }, { authorization: 'Bearer sk-test' });
    assert.equal(ok.status, 200);
    const body = ok.body as { object: string; model: string; data: Array<{ object: string; index: number; embedding: number[] }>; usage: { prompt_tokens: number; total_tokens: number } };
    assert.equal(body.object, 'list');
    assert.equal(body.model, 'text-embedding-3-small');
    assert.deepEqual(body.data.map((d) => [d.object, d.index]), [['embedding', 0], ['embedding', 1]]);
    assert.deepEqual(body.data[1]!.embedding, meaningVector('coffee'));
    assert.equal(typeof body.usage.prompt_tokens, 'number');
    assert.equal(fake.requests, 3);
    assert.equal(fake.texts, 2);
  });

  it('answers encoding_format base64 with little-endian float32s, and refuses or ignores it as told', async () => {
    const asFloat32 = (text: string) => Buffer.from(Float32Array.from(meaningVector(text)).buffer);
    const decoded = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      return Buffer.from(Float32Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4)).buffer);
    };
    const supported = await start();
    const url = `${supported.url}/v1/embeddings`;
    const b64 = await post(url, { model: 'fake', input: ['tea', 'coffee'], encoding_format: 'base64' });
    const data = (b64.body as { data: Array<{ embedding: unknown }> }).data;
    assert.equal(typeof data[1]!.embedding, 'string');
    assert.deepEqual(decoded(data[1]!.embedding as string), asFloat32('coffee'));
    const floats = await post(url, { model: 'fake', input: 'tea', encoding_format: 'float' });
    assert.deepEqual((floats.body as { data: Array<{ embedding: number[] }> }).data[0]!.embedding, meaningVector('tea'));
    await post(url, { model: 'fake', input: 'tea' });
    assert.equal((await post(url, { model: 'fake', input: 'tea', encoding_format: 'int8' })).status, 400);
    assert.deepEqual(supported.encodings, { base64: 1, float: 1, absent: 1 });

    const refused = await start({ base64: 'refused' });
    const no = await post(`${refused.url}/v1/embeddings`, { model: 'fake', input: 'tea', encoding_format: 'base64' });
    assert.equal(no.status, 400);
    assert.equal((no.body as { error: { param: unknown } }).error.param, 'encoding_format');
    assert.equal((await post(`${refused.url}/v1/embeddings`, { model: 'fake', input: 'tea', encoding_format: 'float' })).status, 200);
    assert.deepEqual(refused.encodings, { base64: 1, float: 1, absent: 0 });

    const ignored = await start({ base64: 'ignored' });
    const anyway = await post(`${ignored.url}/v1/embeddings`, { model: 'fake', input: 'tea', encoding_format: 'base64' });
    assert.deepEqual((anyway.body as { data: Array<{ embedding: number[] }> }).data[0]!.embedding, meaningVector('tea'));
    assert.deepEqual(ignored.encodings, { base64: 1, float: 0, absent: 0 });
  });

  it('serves hash vectors of the dimensions asked', async () => {
    const fake = await start({ vectors: 'hash', dimensions: 384 });
    const res = await post(`${fake.url}/v1/embeddings`, { model: 'fake', input: 'anything' });
    const body = res.body as { data: Array<{ embedding: number[] }> };
    assert.deepEqual(body.data[0]!.embedding, hashVector('anything', 384));
  });

  it('refuses an unknown model with a 404 in Ollama words', async () => {
    const fake = await start();
    const res = await post(`${fake.url}/api/embed`, { model: 'all-minilm', input: 'tea' });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: 'model "all-minilm" not found, try pulling it first' });
    const bad = await post(`${fake.url}/api/embed`, { model: 'fake', input: 42 });
    assert.equal(bad.status, 400);
  });

  it('fails as told: down, garbage, wrong-dimension, slow', async () => {
    const fake = await start({ slowMs: 200 });
    const url = `${fake.url}/api/embed`;
    fake.setMode('down');
    assert.equal(fake.mode, 'down');
    assert.equal((await post(url, { model: 'fake', input: 'tea' })).status, 503);
    fake.setMode('garbage');
    const garbage = await post(url, { model: 'fake', input: 'tea' });
    assert.equal(garbage.status, 200);
    assert.equal(garbage.body, undefined, garbage.text);
    fake.setMode('wrong-dimension');
    const wrong = await post(url, { model: 'fake', input: 'tea' });
    assert.equal((wrong.body as { embeddings: number[][] }).embeddings[0]!.length, 101);
    fake.setMode('slow');
    const t0 = Date.now();
    const slow = await post(url, { model: 'fake', input: 'tea' });
    assert.equal(slow.status, 200);
    assert.ok(Date.now() - t0 >= 190, `answered after ${Date.now() - t0} ms`);
    assert.equal(fake.requests, 4);
    assert.equal(fake.texts, 2);
  });

  it('hangs until closed, and close ends the hung request', async () => {
    const fake = await start({ mode: 'hang' });
    const hung = post(`${fake.url}/api/embed`, { model: 'fake', input: 'tea' });
    let settled = false;
    void hung.then(() => (settled = true), () => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(settled, false);
    assert.equal(fake.requests, 1);
    await withTimeout(fake.stop(), 2_000, 'close with a hung request');
    await assert.rejects(withTimeout(hung, 2_000, 'the hung request to end'));
  });

  it('closes promptly with a kept-alive connection open', async () => {
    const fake = await start();
    await post(`${fake.url}/api/embed`, { model: 'fake', input: 'tea' });
    await withTimeout(fake.stop(), 2_000, 'close with an idle keep-alive connection');
  });
});
