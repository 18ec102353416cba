// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "memory.search", through the wire: any query word
// matches (OR), facts matching more and rarer words rank first (BM25),
// scores come best first, stop words are ignored unless the query has
// nothing else, tags are searched, only current facts are returned, and
// `limit` caps the answer (default 10). The index itself is pinned in
// more depth by search-*.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryAdd, MemoryReflect, MemorySearch } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertKeys } from './helpers/shapes.js';

const agentId = 'searcher';
const ids: Record<string, string> = {};

const corpus: Record<string, string> = {
  cat: 'the cat sleeps on the warm mat',
  catDog: 'the cat and the dog play in the garden',
  dog: 'a dog barks at the mailman',
  zebra: 'a zebra has black and white stripes',
  catZebra: 'my cat watched a zebra documentary',
  category: 'this category is about furniture',
};

const shared = useDaemon(
  {},
  {
    setup: async (s) => {
      for (const [k, content] of Object.entries(corpus)) {
        ids[k] = (await s.client.ok(MemoryAdd, { agentId, content })).factId;
      }
      // Padding facts make "cat" common and "zebra" rare across the agent's facts.
      for (let i = 0; i < 9; i++) await s.client.ok(MemoryAdd, { agentId, content: `another cat story number ${i}` });
    },
  },
);

async function search(query: string, limit?: number) {
  return shared.client.ok(MemorySearch, limit === undefined ? { agentId, query } : { agentId, query, limit });
}

describe('memory.search', () => {
  it('returns facts with id, content, createdAt and a score, best first', async () => {
    const r = await search('zebra');
    assertKeys(r, ['facts'], 'search result');
    assert.deepEqual(r.facts.map((f) => f.id).sort(), [ids['zebra'], ids['catZebra']].sort());
    for (const f of r.facts) {
      assertKeys(f, ['id', 'content', 'createdAt', 'score'], 'search hit');
      assert.equal(typeof f.score, 'number');
      assert.ok(Number.isFinite(f.score!) && f.score! > 0);
    }
    const scores = r.facts.map((f) => f.score!);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores, 'best first');
  });

  it('matches any query word, case-insensitively and as whole words', async () => {
    const r = await search('DOG Zebra');
    assert.deepEqual(
      r.facts.map((f) => f.id).sort(),
      [ids['catDog'], ids['dog'], ids['zebra'], ids['catZebra']].sort(),
    );
    // A whole word unless a * asks for completions.
    const cat = await search('cat', 100);
    assert.ok(!cat.facts.some((f) => f.id === ids['category']), '"cat" does not match "category"');
    assert.ok((await search('cat*', 100)).facts.some((f) => f.id === ids['category']), '"cat*" begins "category"');
  });

  it('ranks a fact matching more query words first', async () => {
    const r = await search('cat zebra', 100);
    assert.equal(r.facts[0]?.id, ids['catZebra']);
  });

  it('ranks a rarer word above a common one', async () => {
    const r = await search('cat zebra', 100);
    const rank = (k: string) => r.facts.findIndex((f) => f.id === ids[k]);
    assert.ok(rank('zebra') >= 0 && rank('cat') >= 0);
    assert.ok(rank('zebra') < rank('cat'), 'the zebra-only fact outranks the cat-only fact');
  });

  it('ignores stop words unless the query has nothing else', async () => {
    const withContent = await search('the zebra', 100);
    assert.deepEqual(withContent.facts.map((f) => f.id).sort(), [ids['zebra'], ids['catZebra']].sort());
    const onlyStop = await search('the', 100);
    const expected = [ids['cat'], ids['catDog'], ids['dog']].sort();
    assert.deepEqual(onlyStop.facts.map((f) => f.id).sort(), expected);
  });

  it('caps results at limit, default 10', async () => {
    // 12 facts hold the whole word "cat" (the trailing space turns off
    // prefix matching, which would add "category").
    assert.equal((await search('cat ', 100)).facts.length, 12);
    assert.equal((await search('cat ')).facts.length, 10);
    assert.equal((await search('cat ', 3)).facts.length, 3);
    assert.equal((await search('cat ', 1)).facts.length, 1);
  });

  it('answers a query matching nothing with an empty list', async () => {
    assert.deepEqual(await search('xylophone'), { facts: [] });
  });

  it('searches tags as well as content', async () => {
    const t = await shared.client.ok(MemoryAdd, { agentId: 'tagged', content: 'plain words here', tags: ['astronomy'] });
    const r = await shared.client.ok(MemorySearch, { agentId: 'tagged', query: 'astronomy' });
    assert.deepEqual(r.facts.map((f) => f.id), [t.factId]);
    assert.deepEqual(r.facts[0]?.tags, ['astronomy']);
  });

  it('never returns superseded or deleted facts', async () => {
    const a = 'search-history';
    const v1 = await shared.client.ok(MemoryAdd, { agentId: a, content: 'the password hint is walrus' });
    const gone = await shared.client.ok(MemoryAdd, { agentId: a, content: 'walrus facts are deleted' });
    const u = await shared.client.ok(MemoryReflect, { agentId: a, action: 'update', factId: v1.factId, content: 'the hint is now narwhal' });
    await shared.client.ok(MemoryReflect, { agentId: a, action: 'delete', factId: gone.factId });
    assert.deepEqual(await shared.client.ok(MemorySearch, { agentId: a, query: 'walrus' }), { facts: [] });
    const r = await shared.client.ok(MemorySearch, { agentId: a, query: 'walrus narwhal hint' });
    assert.deepEqual(r.facts.map((f) => f.id), [u.supersededBy]);
  });
});
