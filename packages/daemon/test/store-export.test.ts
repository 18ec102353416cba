import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { DaemonErrorCodes, type MemoryStore } from '@memoryd/daemon';
import type { ExportRecord } from '@memoryd/protocol';
import { assertKeys } from './helpers/shapes.js';
import { exportAll, exportRest, openTempStore, rejectsWith, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

/** Agents b, a. and a with facts, history and checkpoints, written interleaved. */
async function seed(store: MemoryStore) {
  const ids: Record<string, string> = {};
  ids['b-ck'] = (await store.saveCheckpoint({ agentId: 'b', state: { n: 1 }, messageCount: 2 })).checkpointId;
  ids['a.-f'] = (await store.addFact({ agentId: 'a.', content: 'dot fact' })).factId;
  ids['a-f1'] = (await store.addFact({ agentId: 'a', content: 'first', tags: ['t'] })).factId;
  ids['a-ck1'] = (await store.saveCheckpoint({ agentId: 'a', state: { k: 'v' } })).checkpointId;
  ids['b-f'] = (await store.addFact({ agentId: 'b', content: 'bee' })).factId;
  ids['a-f2'] = (await store.addFact({ agentId: 'a', content: 'second' })).factId;
  const up = await store.reflect({ agentId: 'a', action: 'update', factId: ids['a-f1'], content: 'first, revised' });
  ids['a-f1b'] = up.supersededBy!;
  await store.reflect({ agentId: 'a', action: 'delete', factId: ids['a-f2'] });
  ids['a-ck2'] = (await store.saveCheckpoint({ agentId: 'a', state: {} })).checkpointId;
  return ids;
}

describe('admin.export', () => {
  test('orders by agentId, then every fact version, then checkpoints, each by id', async () => {
    const { store } = await openTempStore();
    const ids = await seed(store);
    const records = await exportAll(store, { limit: 2 });
    assert.deepEqual(
      records.map((r) => [r.agentId, r.type, r.id]),
      [
        ['a', 'fact', ids['a-f1']],
        ['a', 'fact', ids['a-f2']],
        ['a', 'fact', ids['a-f1b']],
        ['a', 'checkpoint', ids['a-ck1']],
        ['a', 'checkpoint', ids['a-ck2']],
        ['a.', 'fact', ids['a.-f']],
        ['b', 'fact', ids['b-f']],
        ['b', 'checkpoint', ids['b-ck']],
      ],
    );
    const [f1, f2, f1b, ck1] = records;
    assertKeys(f1, ['type', 'agentId', 'id', 'content', 'tags', 'createdAt', 'updatedAt', 'supersededBy']);
    assertKeys(f2, ['type', 'agentId', 'id', 'content', 'createdAt', 'deletedAt']);
    assertKeys(f1b, ['type', 'agentId', 'id', 'content', 'tags', 'createdAt']);
    assert.deepEqual(ck1, { type: 'checkpoint', agentId: 'a', id: ids['a-ck1'], createdAt: (ck1 as { createdAt: string }).createdAt, state: { k: 'v' } });
    const lastRecord = records.at(-1);
    assert.ok(lastRecord?.type === 'checkpoint');
    assert.equal(lastRecord.messageCount, 2);
    // One page of everything gives the same, without a cursor.
    const whole = await store.exportPage({ limit: 1000 });
    assertKeys(whole, ['records']);
    assert.deepEqual(whole.records, records);
  });

  test('limit defaults to 100; the last page has no cursor', async () => {
    const { store } = await openTempStore();
    for (let i = 0; i < 150; i++) await store.saveCheckpoint({ agentId: 'many', state: { i } });
    const first = await store.exportPage({});
    assert.equal(first.records.length, 100);
    assert.equal(typeof first.cursor, 'string');
    const last = await store.exportPage({ cursor: first.cursor!, limit: 1, agentId: 'ignored' });
    assert.equal(last.records.length, 50, 'params beside a cursor are ignored');
    assertKeys(last, ['records']);
    assert.deepEqual(await store.exportPage({ agentId: 'nobody' }), { records: [] });
  });

  test('filters by agent, even for agents whose ids extend it', async () => {
    const { store } = await openTempStore();
    const ids = await seed(store);
    const records = await exportAll(store, { agentId: 'a', limit: 3 });
    assert.deepEqual(records.map((r) => r.id), [ids['a-f1'], ids['a-f2'], ids['a-f1b'], ids['a-ck1'], ids['a-ck2']]);
    assert.ok(records.every((r) => r.agentId === 'a'));
  });

  test('a snapshot: writes after the first page are invisible to the rest', async () => {
    const { store } = await openTempStore();
    const ids = await seed(store);
    const before = await exportAll(store);
    const first = await store.exportPage({ limit: 3 });
    // Change everything the remaining pages would read.
    await store.addFact({ agentId: 'a', content: 'late fact' });
    await store.addFact({ agentId: 'c', content: 'late agent' });
    await store.saveCheckpoint({ agentId: 'a', state: { late: true } });
    await store.reflect({ agentId: 'b', action: 'delete', factId: ids['b-f']! });
    await store.reflect({ agentId: 'a', action: 'update', factId: ids['a-f1b']!, content: 'late update' });
    assert.deepEqual(await exportRest(store, first), before);
    assert.notDeepEqual(await exportAll(store), before, 'a new export sees the writes');
  });

  test('a cursor can be replayed while its export is open', async () => {
    const { store } = await openTempStore();
    await seed(store);
    const first = await store.exportPage({ limit: 2 });
    const second = await store.exportPage({ cursor: first.cursor! });
    assert.deepEqual(await store.exportPage({ cursor: first.cursor! }), second);
  });

  test('an unknown cursor is invalid params on field cursor', async () => {
    const { store } = await openTempStore();
    for (const cursor of ['', 'nope', 'abc.1', '.']) {
      const err = await rejectsWith(store.exportPage({ cursor }), DaemonErrorCodes.InvalidParams);
      assert.equal(err.data?.field, 'cursor');
    }
  });

  test('a finished export closes its cursors', async () => {
    const { store } = await openTempStore();
    await seed(store);
    const first = await store.exportPage({ limit: 7 });
    const last = await store.exportPage({ cursor: first.cursor! });
    assert.equal(last.cursor, undefined);
    await rejectsWith(store.exportPage({ cursor: first.cursor! }), DaemonErrorCodes.InvalidParams);
  });

  test('an idle cursor expires after the configured time', async () => {
    const ttl = 50;
    const { store } = await openTempStore({ exportCursorTtlMs: ttl });
    await seed(store);
    const first = await store.exportPage({ limit: 1 });
    assert.ok(first.cursor);
    // Node fires timers in order of their due time, so a wait that is due
    // later than the cursor's timer ends after that timer ran. (Using the
    // cursor would re-arm it, hence one attempt after the wait.)
    await sleep(ttl * 4);
    const err = await rejectsWith(store.exportPage({ cursor: first.cursor }), DaemonErrorCodes.InvalidParams);
    assert.equal(err.data?.field, 'cursor');
  });

  test('close() closes open cursors and the store', async () => {
    const { store } = await openTempStore();
    await seed(store);
    const first = await store.exportPage({ limit: 1 });
    await store.close();
    await rejectsWith(store.exportPage({ cursor: first.cursor! }), DaemonErrorCodes.Storage);
    await rejectsWith(store.addFact({ agentId: 'a', content: 'after close' }), DaemonErrorCodes.Storage);
    await rejectsWith(store.listFacts({ agentId: 'a' }), DaemonErrorCodes.Storage);
  });
});

describe('admin.export checked against the counters', () => {
  test('a page read twice at once (a retried cursor) is counted once: the whole export passes its checks', async () => {
    const { store } = await openTempStore();
    for (let i = 0; i < 4; i++) await store.addFact({ agentId: 'a', content: `a fact ${i}` });
    for (let i = 0; i < 6; i++) await store.addFact({ agentId: 'b', content: `b fact ${i}` });
    const first = await store.exportPage({ limit: 3 });
    const ids = first.records.map((r) => r.id);
    let cursor = first.cursor!;
    for (;;) {
      const [page, again] = await Promise.all([store.exportPage({ cursor }), store.exportPage({ cursor })]);
      assert.deepEqual(again.records, page.records);
      ids.push(...page.records.map((r) => r.id));
      if (page.cursor === undefined) break;
      cursor = page.cursor;
    }
    assert.equal(ids.length, 10);
  });
});
