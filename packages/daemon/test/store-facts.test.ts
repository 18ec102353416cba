import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DaemonErrorCodes, type MemoryStore } from '@memoryd/daemon';
import { ABSENT_ID, TIMESTAMP, assertKeys, assertRecentTime, assertUlid } from './helpers/shapes.js';
import { openTempStore, rejectsWith, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

async function allFacts(store: MemoryStore, agentId: string) {
  return (await store.listFacts({ agentId, limit: 100 })).facts;
}

async function exportedFacts(store: MemoryStore, agentId: string) {
  const page = await store.exportPage({ agentId, limit: 1000 });
  assert.equal(page.cursor, undefined);
  return page.records.filter((r) => r.type === 'fact');
}

describe('memory.add', () => {
  test('stores a fact with a ULID whose time is createdAt', async () => {
    const { store } = await openTempStore();
    const added = await store.addFact({ agentId: 'a', content: 'The sky is blue' });
    assertKeys(added, ['factId', 'createdAt']);
    assertUlid(added.factId);
    assertRecentTime(added.createdAt);
    const [fact] = await allFacts(store, 'a');
    assert.deepEqual(fact, { id: added.factId, content: 'The sky is blue', createdAt: added.createdAt });
  });

  test('keeps tags as given and omits them when absent', async () => {
    const { store } = await openTempStore();
    const tagged = await store.addFact({ agentId: 'a', content: 'one', tags: ['Work', 'x y'] });
    const plain = await store.addFact({ agentId: 'a', content: 'two' });
    const facts = await allFacts(store, 'a');
    assert.deepEqual(facts[0], { id: tagged.factId, content: 'one', tags: ['Work', 'x y'], createdAt: tagged.createdAt });
    assertKeys(facts[1], ['id', 'content', 'createdAt']);
    assert.equal(facts[1]?.id, plain.factId);
  });

  test('the same text again is a duplicate: same id and time, nothing stored', async () => {
    const { store } = await openTempStore();
    const first = await store.addFact({ agentId: 'a', content: 'Caffè  latte is   good' });
    const variants = [
      'Caffè  latte is   good',
      'CAFFÈ LATTE IS GOOD',
      '  caffè latte is good\n',
      'Caffe\u0300 latte\tis good', // NFD: e + combining grave accent
    ];
    for (const content of variants) {
      const again = await store.addFact({ agentId: 'a', content, tags: ['ignored'] });
      assert.deepEqual(again, { factId: first.factId, createdAt: first.createdAt, duplicate: true }, content);
    }
    assert.equal((await allFacts(store, 'a')).length, 1);
    assert.equal((await store.counts()).facts, 1);
    assert.equal((await exportedFacts(store, 'a')).length, 1);
  });

  test('case folding covers ß/SS; different words are different facts', async () => {
    const { store } = await openTempStore();
    const street = await store.addFact({ agentId: 'a', content: 'Große Straße' });
    assert.equal((await store.addFact({ agentId: 'a', content: 'GROSSE STRASSE' })).factId, street.factId);
    const other = await store.addFact({ agentId: 'a', content: 'Große Straßen' });
    assert.notEqual(other.factId, street.factId);
    assert.equal(other.duplicate, undefined);
  });

  test('concurrent adds of one text make exactly one fact', async () => {
    const { store } = await openTempStore();
    const texts = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'Race Condition' : ' race   condition '));
    const results = await Promise.all(texts.map((content) => store.addFact({ agentId: 'r', content })));
    assert.equal(new Set(results.map((r) => r.factId)).size, 1);
    assert.equal(results.filter((r) => r.duplicate === undefined).length, 1);
    assert.equal((await allFacts(store, 'r')).length, 1);
    assert.deepEqual(await store.listAgents({}), { agents: [{ agentId: 'r', facts: 1, checkpoints: 0 }] });
  });
});

describe('memory.reflect', () => {
  test('update supersedes: new fact with old tags, old kept as history only', async () => {
    const { store } = await openTempStore();
    const old = await store.addFact({ agentId: 'a', content: 'lives in Paris', tags: ['home'] });
    const res = await store.reflect({ agentId: 'a', action: 'update', factId: old.factId, content: 'lives in Lyon' });
    assertKeys(res, ['action', 'factId', 'supersededBy']);
    assert.equal(res.action, 'update');
    assert.equal(res.factId, old.factId);
    assertUlid(res.supersededBy);
    assert.ok(res.supersededBy! > old.factId, 'the new id sorts after the old one');

    const facts = await allFacts(store, 'a');
    assert.equal(facts.length, 1);
    assert.equal(facts[0]?.id, res.supersededBy);
    assert.equal(facts[0]?.content, 'lives in Lyon');
    assert.deepEqual(facts[0]?.tags, ['home']);
    assert.match(facts[0]!.createdAt, TIMESTAMP);
    assert.deepEqual((await store.searchFacts({ agentId: 'a', query: 'paris' })).facts, []);
    assert.equal((await store.searchFacts({ agentId: 'a', query: 'lyon' })).facts[0]?.id, res.supersededBy);

    const history = await exportedFacts(store, 'a');
    assert.equal(history.length, 2);
    const past = history.find((r) => r.id === old.factId);
    assert.deepEqual(past, {
      type: 'fact',
      agentId: 'a',
      id: old.factId,
      content: 'lives in Paris',
      tags: ['home'],
      createdAt: old.createdAt,
      updatedAt: facts[0]?.createdAt,
      supersededBy: res.supersededBy,
    });
    assert.equal((await store.counts()).facts, 1);
    // The old text is free again; the new text is taken.
    assert.equal((await store.addFact({ agentId: 'a', content: 'lives in Paris' })).duplicate, undefined);
    assert.equal((await store.addFact({ agentId: 'a', content: 'LIVES IN LYON' })).factId, res.supersededBy);
  });

  test('update without content is invalid params on field content', async () => {
    const { store } = await openTempStore();
    const f = await store.addFact({ agentId: 'a', content: 'x' });
    const err = await rejectsWith(store.reflect({ agentId: 'a', action: 'update', factId: f.factId }), DaemonErrorCodes.InvalidParams);
    assert.equal(err.data?.field, 'content');
    assert.equal((await allFacts(store, 'a'))[0]?.id, f.factId);
  });

  test('delete removes from list and search, keeps history, frees the text', async () => {
    const { store } = await openTempStore();
    const f = await store.addFact({ agentId: 'a', content: 'secret plan', tags: ['t'] });
    const keep = await store.addFact({ agentId: 'a', content: 'public plan' });
    const res = await store.reflect({ agentId: 'a', action: 'delete', factId: f.factId });
    assert.deepEqual(res, { action: 'delete', factId: f.factId });
    assert.deepEqual((await allFacts(store, 'a')).map((x) => x.id), [keep.factId]);
    assert.deepEqual((await store.searchFacts({ agentId: 'a', query: 'secret' })).facts, []);
    const past = (await exportedFacts(store, 'a')).find((r) => r.id === f.factId);
    assert.ok(past?.type === 'fact');
    assertKeys(past, ['type', 'agentId', 'id', 'content', 'tags', 'createdAt', 'deletedAt']);
    assertRecentTime(past.deletedAt);
    const again = await store.addFact({ agentId: 'a', content: 'secret plan' });
    assert.equal(again.duplicate, undefined);
    assert.notEqual(again.factId, f.factId);
  });

  test('a fact that is not current is not found: superseded, deleted, unknown, other agent', async () => {
    const { store } = await openTempStore();
    const a = await store.addFact({ agentId: 'a', content: 'v1' });
    await store.reflect({ agentId: 'a', action: 'update', factId: a.factId, content: 'v2' });
    const d = await store.addFact({ agentId: 'a', content: 'gone' });
    await store.reflect({ agentId: 'a', action: 'delete', factId: d.factId });
    const b = await store.addFact({ agentId: 'b', content: 'theirs' });
    for (const factId of [a.factId, d.factId, ABSENT_ID]) {
      await rejectsWith(store.reflect({ agentId: 'a', action: 'update', factId, content: 'v3' }), DaemonErrorCodes.NotFound);
      await rejectsWith(store.reflect({ agentId: 'a', action: 'delete', factId }), DaemonErrorCodes.NotFound);
    }
    await rejectsWith(store.reflect({ agentId: 'a', action: 'delete', factId: b.factId }), DaemonErrorCodes.NotFound);
    assert.equal((await allFacts(store, 'b')).length, 1);
    assert.equal((await store.counts()).facts, 2);
  });

  test('update to the text of another current fact supersedes by that fact', async () => {
    const { store } = await openTempStore();
    const target = await store.addFact({ agentId: 'a', content: 'Tea is good' });
    const old = await store.addFact({ agentId: 'a', content: 'Coffee is good' });
    const res = await store.reflect({ agentId: 'a', action: 'update', factId: old.factId, content: '  TEA is good ' });
    assert.deepEqual(res, { action: 'update', factId: old.factId, supersededBy: target.factId });
    assert.deepEqual((await allFacts(store, 'a')).map((f) => [f.id, f.content]), [[target.factId, 'Tea is good']]);
    const past = (await exportedFacts(store, 'a')).find((r) => r.id === old.factId);
    assert.ok(past?.type === 'fact');
    assert.equal(past.supersededBy, target.factId);
    assertRecentTime(past.updatedAt);
    assert.deepEqual(await store.listAgents({}), { agents: [{ agentId: 'a', facts: 1, checkpoints: 0 }] });
    // Coffee's text is free again.
    assert.equal((await store.addFact({ agentId: 'a', content: 'coffee is good' })).duplicate, undefined);
  });

  test('update to a re-cased version of its own text makes a new version', async () => {
    const { store } = await openTempStore();
    const old = await store.addFact({ agentId: 'a', content: 'paris' });
    const res = await store.reflect({ agentId: 'a', action: 'update', factId: old.factId, content: 'Paris' });
    assert.notEqual(res.supersededBy, old.factId);
    const facts = await allFacts(store, 'a');
    assert.deepEqual(facts.map((f) => [f.id, f.content]), [[res.supersededBy, 'Paris']]);
    assert.equal((await store.addFact({ agentId: 'a', content: 'PARIS' })).factId, res.supersededBy);
  });
});

describe('memory.list', () => {
  test('pages oldest first; next only when more follow; after is exclusive', async () => {
    const { store } = await openTempStore();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await store.addFact({ agentId: 'p', content: `fact number ${i}` })).factId);

    const first = await store.listFacts({ agentId: 'p' });
    assert.deepEqual(first.facts.map((f) => f.id), ids.slice(0, 10), 'default limit 10');
    assert.equal(first.next, ids[9]);
    const second = await store.listFacts({ agentId: 'p', after: first.next!, limit: 10 });
    assert.deepEqual(second.facts.map((f) => f.id), ids.slice(10, 20));
    const third = await store.listFacts({ agentId: 'p', after: second.next!, limit: 10 });
    assert.deepEqual(third.facts.map((f) => f.id), ids.slice(20));
    assertKeys(third, ['facts']);

    const exact = await store.listFacts({ agentId: 'p', after: ids[14]!, limit: 10 });
    assert.deepEqual(exact.facts.map((f) => f.id), ids.slice(15));
    assert.equal(exact.next, undefined, 'no next when the page ends exactly at the last fact');
    assert.deepEqual(await store.listFacts({ agentId: 'p', after: ids[24]! }), { facts: [] });
    assert.deepEqual(await store.listFacts({ agentId: 'nobody' }), { facts: [] });
  });

  test('skips facts deleted or superseded between pages', async () => {
    const { store } = await openTempStore();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await store.addFact({ agentId: 'p', content: `item ${i}` })).factId);
    const page = await store.listFacts({ agentId: 'p', limit: 2 });
    await store.reflect({ agentId: 'p', action: 'delete', factId: ids[2]! });
    const up = await store.reflect({ agentId: 'p', action: 'update', factId: ids[3]!, content: 'item three' });
    const rest = await store.listFacts({ agentId: 'p', after: page.next!, limit: 2 });
    assert.deepEqual(rest.facts.map((f) => f.id), [up.supersededBy]);
    assert.equal(rest.next, undefined);
  });
});
