import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DaemonErrorCodes } from '@memoryd/daemon';
import { ABSENT_ID, assertKeys, assertRecentTime, assertUlid } from './helpers/shapes.js';
import { corruptRecords, openTempStore, rejectsWith, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

describe('checkpoints', () => {
  test('save, then resume the latest and by id, state whole', async () => {
    const { store } = await openTempStore();
    const state = { step: 3, nested: { list: [1, 'two', null, { deep: true }] }, text: 'héllo' };
    const first = await store.saveCheckpoint({ agentId: 'c', state, messageCount: 12 });
    assertKeys(first, ['checkpointId', 'createdAt']);
    assertUlid(first.checkpointId);
    assertRecentTime(first.createdAt);
    const second = await store.saveCheckpoint({ agentId: 'c', state: { step: 4 } });
    assert.ok(second.checkpointId > first.checkpointId);

    assert.deepEqual(await store.resumeCheckpoint({ agentId: 'c' }), {
      checkpoint: { id: second.checkpointId, createdAt: second.createdAt, state: { step: 4 } },
    });
    assert.deepEqual(await store.resumeCheckpoint({ agentId: 'c', checkpointId: first.checkpointId }), {
      checkpoint: { id: first.checkpointId, createdAt: first.createdAt, state, messageCount: 12 },
    });
    assert.deepEqual(await store.resumeCheckpoint({ agentId: 'c', reportNotFound: true }), {
      checkpoint: { id: second.checkpointId, createdAt: second.createdAt, state: { step: 4 } },
    });
  });

  test('absence: notFound error by default, {notFound: true} only when asked', async () => {
    const { store } = await openTempStore();
    await rejectsWith(store.resumeCheckpoint({ agentId: 'none' }), DaemonErrorCodes.NotFound);
    await rejectsWith(store.resumeCheckpoint({ agentId: 'none', reportNotFound: false }), DaemonErrorCodes.NotFound);
    assert.deepEqual(await store.resumeCheckpoint({ agentId: 'none', reportNotFound: true }), { notFound: true });

    await store.saveCheckpoint({ agentId: 'c', state: {} });
    await rejectsWith(store.resumeCheckpoint({ agentId: 'c', checkpointId: ABSENT_ID }), DaemonErrorCodes.NotFound);
    assert.deepEqual(await store.resumeCheckpoint({ agentId: 'c', checkpointId: ABSENT_ID, reportNotFound: true }), {
      notFound: true,
    });
    // Another agent's checkpoint id is absent for this agent.
    const theirs = await store.saveCheckpoint({ agentId: 'd', state: { x: 1 } });
    await rejectsWith(store.resumeCheckpoint({ agentId: 'c', checkpointId: theirs.checkpointId }), DaemonErrorCodes.NotFound);
  });

  test('list pages oldest first without state; next only when more follow', async () => {
    const { store } = await openTempStore();
    const saved: Array<{ checkpointId: string; createdAt: string }> = [];
    for (let i = 0; i < 13; i++) {
      saved.push(await store.saveCheckpoint({ agentId: 'c', state: { i }, ...(i % 2 === 0 ? { messageCount: i } : {}) }));
    }
    const first = await store.listCheckpoints({ agentId: 'c' });
    assert.equal(first.checkpoints.length, 10);
    assert.equal(first.next, saved[9]!.checkpointId);
    assert.deepEqual(first.checkpoints[0], { id: saved[0]!.checkpointId, createdAt: saved[0]!.createdAt, messageCount: 0 });
    assertKeys(first.checkpoints[1], ['id', 'createdAt']);
    const rest = await store.listCheckpoints({ agentId: 'c', after: first.next!, limit: 3 });
    assert.deepEqual(
      rest.checkpoints.map((c) => c.id),
      saved.slice(10).map((s) => s.checkpointId),
    );
    assertKeys(rest, ['checkpoints']);
    const small = await store.listCheckpoints({ agentId: 'c', limit: 1 });
    assert.deepEqual(small.checkpoints.map((c) => c.id), [saved[0]!.checkpointId]);
    assert.equal(small.next, saved[0]!.checkpointId);
    assert.deepEqual(await store.listCheckpoints({ agentId: 'empty' }), { checkpoints: [] });
  });

  test('a corrupted latest checkpoint is a decode error, never a fallback to an older one', async () => {
    const { store, dataDir } = await openTempStore();
    const older = await store.saveCheckpoint({ agentId: 'c', state: { good: true } });
    const latest = await store.saveCheckpoint({ agentId: 'c', state: { good: 'soon not' } });
    await store.saveCheckpoint({ agentId: 'other', state: { fine: 1 } });
    await store.close();
    assert.equal(await corruptRecords(dataDir, latest.checkpointId, '{"id": garbage'), 1, 'exactly one key holds the id');

    const reopened = await reopen(store, dataDir);
    const err = await rejectsWith(reopened.resumeCheckpoint({ agentId: 'c' }), DaemonErrorCodes.Decode);
    assert.ok(err.cause instanceof SyntaxError, 'the JSON error is kept as the cause');
    await rejectsWith(reopened.resumeCheckpoint({ agentId: 'c', reportNotFound: true }), DaemonErrorCodes.Decode);
    await rejectsWith(reopened.resumeCheckpoint({ agentId: 'c', checkpointId: latest.checkpointId }), DaemonErrorCodes.Decode);
    await rejectsWith(reopened.listCheckpoints({ agentId: 'c' }), DaemonErrorCodes.Decode);
    await rejectsWith(reopened.exportPage({ agentId: 'c' }), DaemonErrorCodes.Decode);
    // The intact records still read.
    assert.deepEqual(await reopened.resumeCheckpoint({ agentId: 'c', checkpointId: older.checkpointId }), {
      checkpoint: { id: older.checkpointId, createdAt: older.createdAt, state: { good: true } },
    });
    const other = await reopened.resumeCheckpoint({ agentId: 'other' });
    assert.ok('checkpoint' in other);
    assert.deepEqual(other.checkpoint.state, { fine: 1 });
  });

  test('a checkpoint damaged on disk (its seal broken) is a damaged error wherever it is read', async () => {
    const { store, dataDir } = await openTempStore();
    const older = await store.saveCheckpoint({ agentId: 'c', state: { good: true } });
    const latest = await store.saveCheckpoint({ agentId: 'c', state: { good: 'soon not' } });
    await store.close();
    assert.equal(await corruptRecords(dataDir, latest.checkpointId, JSON.stringify({ id: latest.checkpointId, createdAt: latest.createdAt, state: { good: 'forged' } }), false), 1);
    const reopened = await reopen(store, dataDir);
    // One at a time: a read started and not yet awaited would reject unhandled.
    for (const read of [
      () => reopened.resumeCheckpoint({ agentId: 'c' }),
      () => reopened.resumeCheckpoint({ agentId: 'c', reportNotFound: true }),
      () => reopened.resumeCheckpoint({ agentId: 'c', checkpointId: latest.checkpointId }),
      () => reopened.listCheckpoints({ agentId: 'c' }),
      () => reopened.exportPage({ agentId: 'c' }),
    ]) {
      const err = await rejectsWith(read(), DaemonErrorCodes.Damaged);
      assert.match(err.message, new RegExp(`checkpoint ${latest.checkpointId} of agent c`));
    }
    assert.ok('checkpoint' in (await reopened.resumeCheckpoint({ agentId: 'c', checkpointId: older.checkpointId })));
  });

  test('valid JSON of the wrong shape is a decode error too', async () => {
    const { store, dataDir } = await openTempStore();
    const saved = await store.saveCheckpoint({ agentId: 'c', state: { a: 1 } });
    await store.close();
    await corruptRecords(dataDir, saved.checkpointId, JSON.stringify({ id: saved.checkpointId, createdAt: 'yesterday', state: {} }));
    const reopened = await reopen(store, dataDir);
    await rejectsWith(reopened.resumeCheckpoint({ agentId: 'c' }), DaemonErrorCodes.Decode);
  });
});
