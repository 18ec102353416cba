// FakeEmbedder.asked (@memoryd/test-support): how many requests listed a
// text, prefix cut, whatever the answer. A test that proves a search did
// not ask the provider leans on its 0, so its counting is pinned here.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { cleanupAll, startFakeEmbedder, trackCloser } from '@memoryd/test-support';

after(cleanupAll);

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

it('counts the requests that listed a text, prefix cut, answered or not', async () => {
  const fake = await startFakeEmbedder({ vectors: 'hash', dimensions: 8, key: 'sk-test' });
  const stop = trackCloser(() => fake.close());
  assert.equal(fake.asked('green tea'), 0);
  assert.equal(await post(`${fake.url}/api/embed`, { model: 'fake', input: ['search_query: green tea', 'green tea', 'espresso'] }), 200);
  assert.equal(fake.asked('green tea'), 1, 'twice in one request counts once');
  assert.equal(fake.asked('search_document: green tea'), 1, 'the prefix is cut from the question too');
  assert.equal(await post(`${fake.url}/v1/embeddings`, { model: 'fake', input: 'green tea' }), 401);
  assert.equal(await post(`${fake.url}/api/embed`, { model: 'all-minilm', input: 'green tea' }), 404);
  fake.setMode('down');
  assert.equal(await post(`${fake.url}/api/embed`, { model: 'fake', input: 'green tea' }), 503);
  assert.equal(fake.asked('green tea'), 4);
  assert.equal(fake.asked('espresso'), 1);
  assert.equal(fake.asked('green'), 0, 'exactly the text, not a part of it');
  assert.equal(fake.texts, 3, 'texts still counts only what was embedded');
  await stop();
});
