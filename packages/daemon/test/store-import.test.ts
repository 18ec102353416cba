import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { ErrorCodes, type ExportRecord } from '@memoryd/protocol';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

async function exportAll(store: MemoryStore): Promise<ExportRecord[]> {
  const records: ExportRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.exportPage(cursor === undefined ? { limit: 4 } : { cursor });
    records.push(...page.records);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return records;
}

/** A store with history: updates (also onto existing text), deletes, checkpoints, two agents. */
async function source(): Promise<{ store: MemoryStore; records: ExportRecord[] }> {
  const { store } = await openTempStore();
  const a = await store.addFact({ agentId: 'a', content: 'alpha', tags: ['x', 'y'] });
  const b = await store.addFact({ agentId: 'a', content: 'beta' });
  await store.addFact({ agentId: 'a', content: 'gamma' });
  await store.reflect({ agentId: 'a', action: 'update', factId: a.factId, content: 'alpha two' });
  await store.reflect({ agentId: 'a', action: 'update', factId: b.factId, content: 'GAMMA' });
  const d = await store.addFact({ agentId: 'a.', content: 'delta' });
  await store.reflect({ agentId: 'a.', action: 'delete', factId: d.factId });
  await store.saveCheckpoint({ agentId: 'a', state: { s: [1, { t: 2 }] }, messageCount: 9 });
  await store.saveCheckpoint({ agentId: 'b', state: {} });
  await store.addFact({ agentId: 'b', content: 'epsilon' });
  return { store, records: await exportAll(store) };
}

describe('admin.import', () => {
  test('export → import into a fresh store → export is identical, counters included', async () => {
    const { store: from, records } = await source();
    assert.equal(records.length, 8);
    const { store: to, dataDir } = await openTempStore();
    assert.deepEqual(await to.importRecords({ records }), { imported: records.length, skipped: 0, rejected: [] });
    assert.deepEqual(await exportAll(to), records);
    assert.deepEqual(await to.listAgents({}), await from.listAgents({}));
    assert.deepEqual(await to.counts(), await from.counts());
    // Imported current facts are listed, searched and deduplicated like added ones.
    assert.deepEqual((await to.listFacts({ agentId: 'a' })).facts, (await from.listFacts({ agentId: 'a' })).facts);
    assert.deepEqual(
      (await to.searchFacts({ agentId: 'a', query: 'gamma' })).facts,
      (await from.searchFacts({ agentId: 'a', query: 'gamma' })).facts,
    );
    const gamma = (await from.listFacts({ agentId: 'a' })).facts.find((f) => f.content === 'gamma')!;
    assert.deepEqual(await to.addFact({ agentId: 'a', content: 'Gamma' }), {
      factId: gamma.id,
      createdAt: gamma.createdAt,
      duplicate: true,
    });
    const reopened = await reopen(to, dataDir);
    assert.deepEqual(await exportAll(reopened), records);
    assert.deepEqual(await reopened.counts(), await from.counts());
  });

  test('importing the same records again skips them all', async () => {
    const { records } = await source();
    const { store } = await openTempStore();
    await store.importRecords({ records });
    const counts = await store.counts();
    assert.deepEqual(await store.importRecords({ records }), { imported: 0, skipped: records.length, rejected: [] });
    assert.deepEqual(await exportAll(store), records);
    assert.deepEqual(await store.counts(), counts);
    // Repeats within one call are skipped too.
    const { store: fresh } = await openTempStore();
    assert.deepEqual(await fresh.importRecords({ records: [records[0], records[0]] }), { imported: 1, skipped: 1, rejected: [] });
  });

  test('any order, within and across calls, gives the same store', async () => {
    const { store: from, records } = await source();
    const reversed = [...records].reverse();
    const { store } = await openTempStore();
    await store.importRecords({ records: reversed.slice(0, 5) });
    await store.importRecords({ records: reversed.slice(5) });
    assert.deepEqual(await exportAll(store), records);
    assert.deepEqual(await store.listAgents({}), await from.listAgents({}));
    assert.deepEqual(await store.counts(), await from.counts());
  });

  test('invalid records are rejected by index while the others import', async () => {
    const { records } = await source();
    const good = records.slice(0, 3);
    const bad: unknown[] = [
      null,
      { ...good[0], type: 'note' },
      { ...good[0], id: 'not-a-ulid' },
      { ...good[0], agentId: 'a/b' },
      { ...good[0], content: '   ' },
      { ...good[0], tags: null },
    ];
    const mixed = [good[0], bad[0], bad[1], good[1], bad[2], bad[3], bad[4], bad[5], good[2]];
    const { store } = await openTempStore();
    const result = await store.importRecords({ records: mixed });
    assert.equal(result.imported, 3);
    assert.equal(result.skipped, 0);
    assert.deepEqual(result.rejected.map((r) => r.index), [1, 2, 4, 5, 6, 7]);
    for (const r of result.rejected) {
      assert.equal(r.code, ErrorCodes.InvalidParams);
      assert.ok(r.reason.startsWith(`records[${r.index}]`), r.reason);
    }
    assert.deepEqual(
      result.rejected.map((r) => r.reason.split(':')[0]),
      ['records[1]', 'records[2].type', 'records[4].id', 'records[5].agentId', 'records[6].content', 'records[7].tags'],
    );
    assert.deepEqual(await exportAll(store), good);
    const alone = await store.importRecords({ records: [bad[1]] });
    assert.deepEqual(alone.rejected.map((r) => [r.index, r.reason.split(':')[0]]), [[0, 'records[0].type']]);
    assert.equal(alone.imported, 0);
  });

  test('an imported current fact whose text another current fact holds stays current; both are counted', async () => {
    const { store } = await openTempStore();
    const mine = await store.addFact({ agentId: 'a', content: 'same text' });
    const other: ExportRecord = {
      type: 'fact',
      agentId: 'a',
      id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      content: 'Same  Text',
      createdAt: '2016-07-30T23:54:10.259Z',
    };
    assert.deepEqual(await store.importRecords({ records: [other] }), { imported: 1, skipped: 0, rejected: [] });
    assert.deepEqual((await store.listFacts({ agentId: 'a' })).facts.map((f) => f.id), [other.id, mine.factId]);
    // Of several holders, add names the oldest (the lowest id).
    assert.equal((await store.addFact({ agentId: 'a', content: 'same text' })).factId, other.id);
    // Deleting it leaves the other one found by add.
    await store.reflect({ agentId: 'a', action: 'delete', factId: other.id });
    assert.deepEqual(await store.addFact({ agentId: 'a', content: 'SAME TEXT' }), {
      factId: mine.factId,
      createdAt: mine.createdAt,
      duplicate: true,
    });
    assert.deepEqual(await store.counts(), { facts: 1, checkpoints: 0, agents: 1 });
  });
});
