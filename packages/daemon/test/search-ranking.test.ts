import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { assertKeys } from './helpers/shapes.js';
import { openTempStore, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

/** A fresh store whose agent `s` holds these facts, added in order. */
async function withFacts(facts: Array<string | { content: string; tags: string[] }>) {
  const { store } = await openTempStore();
  const ids = new Map<string, string>();
  for (const f of facts) {
    const p = typeof f === 'string' ? { content: f } : f;
    const added = await store.addFact({ agentId: 's', ...p });
    assert.equal(added.duplicate, undefined);
    ids.set(p.content, added.factId);
  }
  return { store, ids };
}

async function contents(store: MemoryStore, query: string, limit?: number): Promise<string[]> {
  const { facts } = await store.searchFacts({ agentId: 's', query, ...(limit === undefined ? {} : { limit }) });
  return facts.map((f) => f.content);
}

describe('memory.search', () => {
  test('results carry a positive score, best first; non-matching facts are left out', async () => {
    const { store, ids } = await withFacts(['red apple', 'green pear', { content: 'red car', tags: ['Auto'] }]);
    const { facts } = await store.searchFacts({ agentId: 's', query: 'red' });
    assert.deepEqual(facts.map((f) => f.content).sort(), ['red apple', 'red car']);
    for (const f of facts) {
      assert.ok(typeof f.score === 'number' && f.score > 0);
      assertKeys(f, f.tags === undefined ? ['id', 'content', 'createdAt', 'score'] : ['id', 'content', 'tags', 'createdAt', 'score']);
    }
    const car = facts.find((f) => f.content === 'red car');
    assert.deepEqual(car?.tags, ['Auto']);
    assert.equal(car?.id, ids.get('red car'));
    assert.ok(facts[0]!.score! >= facts[1]!.score!);
    assert.deepEqual(await contents(store, 'banana'), []);
  });

  test('a rarer word outweighs a common one', async () => {
    const { store } = await withFacts(['red apple', 'red car', 'red hat', 'blue car']);
    const found = await contents(store, 'red blue');
    assert.equal(found[0], 'blue car');
    assert.deepEqual(found.slice(1).sort(), ['red apple', 'red car', 'red hat']);
  });

  test('facts matching more query words come first', async () => {
    const { store } = await withFacts(['red hat', 'red blue car', 'blue car', 'red car']);
    const found = await contents(store, 'red car');
    assert.deepEqual(found.slice(0, 2), ['red car', 'red blue car']);
    assert.deepEqual(found.slice(2).sort(), ['blue car', 'red hat']);
  });

  test('a word in the tags weighs more than the same word in the text', async () => {
    const { store } = await withFacts(['budget meeting', { content: 'meeting notes', tags: ['budget'] }, 'lunch']);
    assert.deepEqual(await contents(store, 'budget'), ['meeting notes', 'budget meeting']);
    // Tags alone are enough to match.
    const { store: tagged } = await withFacts([{ content: 'quarterly numbers', tags: ['Finance Team'] }]);
    assert.deepEqual(await contents(tagged, 'finance'), ['quarterly numbers']);
  });

  test('stop words are ignored unless the query has nothing else', async () => {
    const { store } = await withFacts(['the cat', 'the dog', 'a bird']);
    assert.deepEqual(await contents(store, 'the cat'), ['the cat']);
    assert.deepEqual(await contents(store, 'what is the cat'), ['the cat']);
    assert.deepEqual((await contents(store, 'the')).sort(), ['the cat', 'the dog']);
    assert.deepEqual((await contents(store, 'the a of')).sort(), ['a bird', 'the cat', 'the dog']);
  });

  // A finished word (white space after it) matches whole words only, up to
  // inflection: stemming makes `cats` and `cat` one term, and the last word
  // is a prefix only while nothing follows it (search-analysis.test.ts).
  test('whole words only, once the word is finished', async () => {
    const { store } = await withFacts(['category theory', 'cat food', 'cats and dogs', 'concatenate']);
    assert.deepEqual(await contents(store, 'cat '), ['cat food', 'cats and dogs']);
    assert.deepEqual(await contents(store, 'cats '), ['cat food', 'cats and dogs']);
    assert.deepEqual(await contents(store, 'at'), []);
  });

  test('case-insensitive and Unicode-aware', async () => {
    const { store } = await withFacts(['PostgreSQL Tuning', 'Ärger im Büro', 'nai\u0308ve approach', 'ﬁle system', 'café-au-lait']);
    assert.deepEqual(await contents(store, 'postgresql'), ['PostgreSQL Tuning']);
    assert.deepEqual(await contents(store, 'TUNING'), ['PostgreSQL Tuning']);
    assert.deepEqual(await contents(store, 'ärger'), ['Ärger im Büro']);
    assert.deepEqual(await contents(store, 'büro'), ['Ärger im Büro']);
    assert.deepEqual(await contents(store, 'NAÏVE'), ['nai\u0308ve approach'], 'NFD text, NFC query');
    assert.deepEqual(await contents(store, 'file'), ['ﬁle system'], 'compatibility ligature');
    assert.deepEqual(await contents(store, 'au'), ['café-au-lait'], 'punctuation separates words');
    assert.deepEqual(await contents(store, 'Café'), ['café-au-lait']);
  });

  test('equal scores: newer first', async () => {
    const { store, ids } = await withFacts(['alpha beta', 'beta alpha', 'alpha, beta!']);
    const { facts } = await store.searchFacts({ agentId: 's', query: 'alpha' });
    assert.equal(new Set(facts.map((f) => f.score)).size, 1, 'the three score the same');
    assert.deepEqual(
      facts.map((f) => f.id),
      [ids.get('alpha, beta!'), ids.get('beta alpha'), ids.get('alpha beta')],
    );
  });

  test('never returns superseded or deleted facts', async () => {
    const { store, ids } = await withFacts(['zebra one', 'zebra three', 'horse']);
    const up = await store.reflect({ agentId: 's', action: 'update', factId: ids.get('zebra one')!, content: 'zebra two' });
    await store.reflect({ agentId: 's', action: 'delete', factId: ids.get('zebra three')! });
    await store.reflect({ agentId: 's', action: 'update', factId: ids.get('horse')!, content: 'zebra two' });
    const { facts } = await store.searchFacts({ agentId: 's', query: 'zebra one three horse two' });
    assert.deepEqual(facts.map((f) => f.id), [up.supersededBy]);
  });

  test('limit: default 10, or as given', async () => {
    const { store } = await withFacts(Array.from({ length: 15 }, (_, i) => `shared word ${i}`));
    assert.equal((await contents(store, 'shared')).length, 10);
    assert.equal((await contents(store, 'shared', 3)).length, 3);
    assert.equal((await contents(store, 'shared', 100)).length, 15);
  });

  test('a query with no words finds nothing; an agent with no facts finds nothing', async () => {
    const { store } = await withFacts(['anything at all']);
    assert.deepEqual(await contents(store, '?!  …'), []);
    assert.deepEqual((await store.searchFacts({ agentId: 'empty', query: 'anything' })).facts, []);
  });
});
