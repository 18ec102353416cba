// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Methods": checkpoint.save, checkpoint.resume (latest
// without checkpointId, a given one with it) and checkpoint.list (oldest
// first, no state, `next` only when more follow).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckpointList, CheckpointResume, CheckpointSave } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertKeys, assertRecentTime, assertUlid } from './helpers/shapes.js';

const shared = useDaemon();

describe('checkpoint.save and checkpoint.resume', () => {
  it('save returns a ULID and a recent createdAt, and nothing else', async () => {
    const r = await shared.client.ok(CheckpointSave, { agentId: 'cp-1', state: { step: 1 } });
    assertKeys(r, ['checkpointId', 'createdAt'], 'save result');
    assertUlid(r.checkpointId, 'checkpointId');
    assertRecentTime(r.createdAt, 60_000, 'createdAt');
  });

  it('resume without an id returns the latest checkpoint whole', async () => {
    const agentId = 'cp-latest';
    const state1 = { step: 1 };
    const state2 = {
      step: 2,
      nested: { list: [1, 'two', { three: 3 }], empty: {}, nil: null, yes: true },
      text: 'Grüße 世界 🌍 "quoted" \\ \n',
      float: 0.1,
      big: 1e21,
      neg: -7,
    };
    await shared.client.ok(CheckpointSave, { agentId, state: state1, messageCount: 3 });
    const s2 = await shared.client.ok(CheckpointSave, { agentId, state: state2, messageCount: 0 });
    const r = await shared.client.ok(CheckpointResume, { agentId });
    assert.deepEqual(r, { checkpoint: { id: s2.checkpointId, createdAt: s2.createdAt, state: state2, messageCount: 0 } });
  });

  it('resume by id returns that checkpoint, not the latest', async () => {
    const agentId = 'cp-byid';
    const s1 = await shared.client.ok(CheckpointSave, { agentId, state: { which: 'first' }, messageCount: 2_147_483_647 });
    await shared.client.ok(CheckpointSave, { agentId, state: { which: 'second' } });
    const r = await shared.client.ok(CheckpointResume, { agentId, checkpointId: s1.checkpointId });
    assert.deepEqual(r, {
      checkpoint: { id: s1.checkpointId, createdAt: s1.createdAt, state: { which: 'first' }, messageCount: 2_147_483_647 },
    });
  });

  it('omits messageCount when none was saved, and keeps an empty state', async () => {
    const agentId = 'cp-nocount';
    const s = await shared.client.ok(CheckpointSave, { agentId, state: {} });
    const r = await shared.client.ok(CheckpointResume, { agentId, checkpointId: s.checkpointId });
    assert.ok('checkpoint' in r);
    assertKeys(r.checkpoint, ['id', 'createdAt', 'state'], 'checkpoint');
    assert.deepEqual(r.checkpoint.state, {});
  });

  it('latest follows saves made in quick succession', async () => {
    const agentId = 'cp-rapid';
    let last = '';
    for (let i = 0; i < 30; i++) last = (await shared.client.ok(CheckpointSave, { agentId, state: { i } })).checkpointId;
    const r = await shared.client.ok(CheckpointResume, { agentId });
    assert.ok('checkpoint' in r);
    assert.equal(r.checkpoint.id, last);
    assert.deepEqual(r.checkpoint.state, { i: 29 });
  });
});

describe('checkpoint.list', () => {
  it('pages oldest first without state, with next only while more follow', async () => {
    const agentId = 'cp-list';
    const saved = [];
    for (let i = 0; i < 23; i++) {
      const messageCount = i % 2 === 0 ? i : undefined;
      const p = messageCount === undefined ? { agentId, state: { i } } : { agentId, state: { i }, messageCount };
      const s = await shared.client.ok(CheckpointSave, p);
      saved.push(messageCount === undefined ? { id: s.checkpointId, createdAt: s.createdAt } : { id: s.checkpointId, createdAt: s.createdAt, messageCount });
    }
    const p1 = await shared.client.ok(CheckpointList, { agentId });
    assertKeys(p1, ['checkpoints', 'next'], 'first page');
    assert.deepEqual(p1.checkpoints, saved.slice(0, 10), 'default limit 10, oldest first, no state');
    const p2 = await shared.client.ok(CheckpointList, { agentId, after: p1.next!, limit: 10 });
    assert.deepEqual(p2.checkpoints, saved.slice(10, 20));
    const p3 = await shared.client.ok(CheckpointList, { agentId, after: p2.next!, limit: 3 });
    assert.deepEqual(p3, { checkpoints: saved.slice(20) }, 'the last page has no next');
    const all = await shared.client.ok(CheckpointList, { agentId, limit: 100 });
    assert.deepEqual(all, { checkpoints: saved });
  });

  it('answers an agent without checkpoints with an empty page', async () => {
    assert.deepEqual(await shared.client.ok(CheckpointList, { agentId: 'cp-none' }), { checkpoints: [] });
  });
});
