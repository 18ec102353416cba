// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Methods": memory.add (ids, times, idempotence on
// normalised content), memory.list (oldest first, or newest first with
// order "newest", current facts only, `next` only when more follow) and memory.reflect (update returns
// supersededBy and keeps the old version as history; delete never does).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryAdd, MemoryList, MemoryReflect, MemorySearch } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertError, assertInvalidParams, type RpcClient } from './helpers/rpc.js';
import { ABSENT_ID, assertKeys, assertRecentTime, assertUlid } from './helpers/shapes.js';

const shared = useDaemon();

/** Every current fact of an agent, following `next` to the end. */
async function listAll(c: RpcClient, agentId: string, limit = 100) {
  const out = [];
  let after: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const r = await c.ok(MemoryList, after === undefined ? { agentId, limit } : { agentId, limit, after });
    out.push(...r.facts);
    if (r.next === undefined) return out;
    after = r.next;
  }
  throw new Error('memory.list never ended');
}

describe('memory.add', () => {
  it('returns a ULID factId and a recent createdAt, and nothing else', async () => {
    const r = await shared.client.ok(MemoryAdd, { agentId: 'add-1', content: 'water boils at 100 C' });
    assertKeys(r, ['factId', 'createdAt'], 'memory.add result');
    assertUlid(r.factId, 'factId');
    assertRecentTime(r.createdAt, 60_000, 'createdAt');
  });

  it('issues ids that sort by creation', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push((await shared.client.ok(MemoryAdd, { agentId: 'add-2', content: `ordered fact ${i}` })).factId);
    }
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('keeps content and tags exactly as given', async () => {
    const content = '  Grüße, 世界 🌍\n second line\t ';
    const r = await shared.client.ok(MemoryAdd, { agentId: 'add-3', content, tags: ['Ünïcode', 'x y', '🏷️'] });
    const [f] = await listAll(shared.client, 'add-3');
    assert.ok(f);
    assert.deepEqual(f, { id: r.factId, content, tags: ['Ünïcode', 'x y', '🏷️'], createdAt: r.createdAt });
  });

  const variants: Array<[string, string, string]> = [
    ['case', 'The Sky Is Blue', 'the sky is BLUE'],
    ['trimming', 'trim me please', '   trim me please \n'],
    ['white space collapsing', 'a  b\tc\n\nd', 'a b c d'],
    ['NFC', 'caf\u00e9 cr\u00e8me', 'cafe\u0301 cre\u0300me'],
    ['case folding beyond ASCII', 'ÉCOLE ΣΟΦΊΑ', 'école σοφία'],
  ];
  for (const [name, first, second] of variants) {
    it(`treats content equal after ${name} as a duplicate`, async () => {
      const agentId = `dup-${name.replace(/\W+/g, '-')}`;
      const a = await shared.client.ok(MemoryAdd, { agentId, content: first });
      const b = await shared.client.ok(MemoryAdd, { agentId, content: second, tags: ['other tags do not matter'] });
      assert.deepEqual(b, { factId: a.factId, createdAt: a.createdAt, duplicate: true });
      const all = await listAll(shared.client, agentId);
      assert.equal(all.length, 1, 'a duplicate stores nothing new');
      assert.equal(all[0]?.content, first);
    });
  }

  it('does not treat different text as a duplicate', async () => {
    const agentId = 'dup-not';
    const a = await shared.client.ok(MemoryAdd, { agentId, content: 'the fox' });
    for (const content of ['the fox.', 'the foxes', 'thefox', 'the  fox  jumps']) {
      const b = await shared.client.ok(MemoryAdd, { agentId, content });
      assert.equal(b.duplicate, undefined, content);
      assert.notEqual(b.factId, a.factId);
    }
  });

  it('compares only with current facts: deleted and superseded text can be added again', async () => {
    const agentId = 'dup-history';
    const a = await shared.client.ok(MemoryAdd, { agentId, content: 'old text' });
    const u = await shared.client.ok(MemoryReflect, { agentId, action: 'update', factId: a.factId, content: 'new text' });
    const again = await shared.client.ok(MemoryAdd, { agentId, content: 'Old Text' });
    assert.equal(again.duplicate, undefined);
    assert.notEqual(again.factId, a.factId);
    const dupOfNew = await shared.client.ok(MemoryAdd, { agentId, content: 'NEW text' });
    assert.deepEqual([dupOfNew.factId, dupOfNew.duplicate], [u.supersededBy, true]);
    await shared.client.ok(MemoryReflect, { agentId, action: 'delete', factId: again.factId });
    const third = await shared.client.ok(MemoryAdd, { agentId, content: 'old text' });
    assert.equal(third.duplicate, undefined);
  });

  it('never makes a second copy when the same add is retried concurrently', async () => {
    const agentId = 'dup-race';
    const rs = await Promise.all(
      Array.from({ length: 10 }, () => shared.client.ok(MemoryAdd, { agentId, content: 'raced content' })),
    );
    assert.equal(new Set(rs.map((r) => r.factId)).size, 1);
    assert.equal(rs.filter((r) => r.duplicate === undefined).length, 1, 'exactly one add stored it');
    assert.equal((await listAll(shared.client, agentId)).length, 1);
  });
});

describe('memory.list', () => {
  it('pages oldest first with next only while more follow', async () => {
    const agentId = 'list-25';
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await shared.client.ok(MemoryAdd, { agentId, content: `item ${i}` })).factId);
    const p1 = await shared.client.ok(MemoryList, { agentId, limit: 10 });
    assertKeys(p1, ['facts', 'next'], 'first page');
    assert.deepEqual(p1.facts.map((f) => f.id), ids.slice(0, 10));
    const p2 = await shared.client.ok(MemoryList, { agentId, limit: 10, after: p1.next! });
    assert.deepEqual(p2.facts.map((f) => f.id), ids.slice(10, 20));
    assert.ok(p2.next !== undefined);
    const p3 = await shared.client.ok(MemoryList, { agentId, limit: 10, after: p2.next });
    assertKeys(p3, ['facts'], 'last page');
    assert.deepEqual(p3.facts.map((f) => f.id), ids.slice(20));
    for (const f of p1.facts) assertKeys(f, ['id', 'content', 'createdAt'], 'listed fact');
  });

  it('defaults to 10 and gives no next when a page ends exactly at the last fact', async () => {
    const agentId = 'list-20';
    for (let i = 0; i < 20; i++) await shared.client.ok(MemoryAdd, { agentId, content: `entry ${i}` });
    const p1 = await shared.client.ok(MemoryList, { agentId });
    assert.equal(p1.facts.length, 10);
    const p2 = await shared.client.ok(MemoryList, { agentId, after: p1.next! });
    assert.equal(p2.facts.length, 10);
    assert.equal('next' in p2, false, 'no next when nothing follows');
  });

  it('answers an agent without facts with an empty page', async () => {
    assert.deepEqual(await shared.client.ok(MemoryList, { agentId: 'list-none' }), { facts: [] });
  });

  it('pages newest first with order "newest", each page below the last, current facts only', async () => {
    const agentId = 'list-newest';
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await shared.client.ok(MemoryAdd, { agentId, content: `newest item ${i}`, ...(i % 3 === 0 ? { tags: ['third'] } : {}) })).factId);
    const updated = await shared.client.ok(MemoryReflect, { agentId, action: 'update', factId: ids[5]!, content: 'newest item 5, changed' });
    await shared.client.ok(MemoryReflect, { agentId, action: 'delete', factId: ids[26]! });
    await shared.client.ok(MemoryReflect, { agentId, action: 'delete', factId: ids[12]! });
    const current = [...ids.filter((_, i) => ![5, 12, 26].includes(i)), updated.supersededBy!];
    const newest = [...current].reverse();
    const p1 = await shared.client.ok(MemoryList, { agentId, limit: 10, order: 'newest' });
    assertKeys(p1, ['facts', 'next'], 'first page');
    assert.deepEqual(p1.facts.map((f) => f.id), newest.slice(0, 10));
    assert.equal(p1.next, newest[9]);
    const p2 = await shared.client.ok(MemoryList, { agentId, limit: 10, order: 'newest', after: p1.next! });
    assert.deepEqual(p2.facts.map((f) => f.id), newest.slice(10, 20));
    const p3 = await shared.client.ok(MemoryList, { agentId, limit: 10, order: 'newest', after: p2.next! });
    assertKeys(p3, ['facts'], 'last page');
    assert.deepEqual(p3.facts.map((f) => f.id), newest.slice(20));
    assert.deepEqual(p1.facts[0], { id: updated.supersededBy, content: 'newest item 5, changed', createdAt: p1.facts[0]!.createdAt });
    // Below any cursor, even a deleted fact's; with a filter, only what passes.
    assert.deepEqual((await shared.client.ok(MemoryList, { agentId, limit: 100, order: 'newest', after: ids[12]! })).facts.map((f) => f.id), newest.filter((id) => id < ids[12]!));
    const third = (await shared.client.ok(MemoryList, { agentId, limit: 100, order: 'newest', tags: ['Third'] })).facts.map((f) => f.id);
    assert.deepEqual(third, [24, 21, 18, 15, 9, 6, 3, 0].map((i) => ids[i]));
    const since = p2.facts[0]!.createdAt;
    const windowed = (await shared.client.ok(MemoryList, { agentId, limit: 100, order: 'newest', since, until: p1.facts[0]!.createdAt })).facts;
    assert.ok(windowed.every((f, i) => f.createdAt >= since && f.createdAt < p1.facts[0]!.createdAt && (i === 0 || windowed[i - 1]!.id > f.id)));
    // 'oldest' is the default order; anything else is refused naming the param.
    assert.deepEqual(await shared.client.ok(MemoryList, { agentId, limit: 100, order: 'oldest' }), await shared.client.ok(MemoryList, { agentId, limit: 100 }));
    assertInvalidParams(await shared.client.fail('memory.list', { agentId, order: 'latest' }), 'order');
    assertInvalidParams(await shared.client.fail('memory.list', { agentId, order: null }), 'order');
  });
});

describe('memory.reflect', () => {
  it('update returns the old id and supersededBy; only the new version is listed', async () => {
    const agentId = 'reflect-u';
    const a = await shared.client.ok(MemoryAdd, { agentId, content: 'the meeting is on monday' });
    const b = await shared.client.ok(MemoryAdd, { agentId, content: 'unrelated' });
    const r = await shared.client.ok(MemoryReflect, {
      agentId,
      action: 'update',
      factId: a.factId,
      content: 'the meeting is on tuesday',
    });
    assertKeys(r, ['action', 'factId', 'supersededBy'], 'update result');
    assert.equal(r.action, 'update');
    assert.equal(r.factId, a.factId);
    assertUlid(r.supersededBy, 'supersededBy');
    assert.notEqual(r.supersededBy, a.factId);
    const all = await listAll(shared.client, agentId);
    assert.deepEqual(all.map((f) => f.id), [b.factId, r.supersededBy]);
    const updated = all[1]!;
    assert.equal(updated.content, 'the meeting is on tuesday');
    assertRecentTime(updated.createdAt, 60_000, 'new createdAt');
    assert.ok(updated.createdAt >= a.createdAt);
    const hits = await shared.client.ok(MemorySearch, { agentId, query: 'monday tuesday meeting' });
    assert.deepEqual(hits.facts.map((f) => f.id), [r.supersededBy], 'history never appears in search');
  });

  it('delete returns action and factId only; the fact leaves list and search', async () => {
    const agentId = 'reflect-d';
    const a = await shared.client.ok(MemoryAdd, { agentId, content: 'delete this penguin fact' });
    const r = await shared.client.ok(MemoryReflect, { agentId, action: 'delete', factId: a.factId });
    assert.deepEqual(r, { action: 'delete', factId: a.factId });
    assert.deepEqual(await shared.client.ok(MemoryList, { agentId }), { facts: [] });
    assert.deepEqual(await shared.client.ok(MemorySearch, { agentId, query: 'penguin' }), { facts: [] });
  });

  it('a missing, deleted or superseded fact is -32004', async () => {
    const agentId = 'reflect-missing';
    const c = shared.client;
    assertError(await c.call('memory.reflect', { agentId, action: 'delete', factId: ABSENT_ID }), -32004);
    const a = await c.ok(MemoryAdd, { agentId, content: 'v1' });
    const u = await c.ok(MemoryReflect, { agentId, action: 'update', factId: a.factId, content: 'v2' });
    assertError(await c.call('memory.reflect', { agentId, action: 'update', factId: a.factId, content: 'v3' }), -32004);
    await c.ok(MemoryReflect, { agentId, action: 'delete', factId: u.supersededBy! });
    assertError(await c.call('memory.reflect', { agentId, action: 'delete', factId: u.supersededBy }), -32004);
  });

  it('update without content, or with an unknown action, is -32602', async () => {
    const a = await shared.client.ok(MemoryAdd, { agentId: 'reflect-bad', content: 'x' });
    assertInvalidParams(await shared.client.fail('memory.reflect', { agentId: 'reflect-bad', action: 'update', factId: a.factId }), 'content');
    assertInvalidParams(await shared.client.fail('memory.reflect', { agentId: 'reflect-bad', action: 'merge', factId: a.factId }), 'action');
    assert.equal((await shared.client.ok(MemoryList, { agentId: 'reflect-bad' })).facts.length, 1);
  });
});
