// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Typed absence": a missing checkpoint is {notFound: true} only
// with reportNotFound: true, and error -32004 otherwise; both for a missing
// id and for an agent with no checkpoint at all. Unknown params keys are
// ignored, which is what lets an old daemon ignore reportNotFound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckpointResume, CheckpointSave, DaemonHello, MemoryAdd } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertError } from './helpers/rpc.js';
import { ABSENT_ID } from './helpers/shapes.js';

const shared = useDaemon();

describe('typed absence', () => {
  it('announces the reportNotFound capability', async () => {
    const hello = await shared.client.ok(DaemonHello, {});
    assert.ok(hello.capabilities.includes('reportNotFound'));
  });

  it('an agent with no checkpoints: -32004 by default and with reportNotFound false', async () => {
    const c = shared.client;
    const a = assertError(await c.call('checkpoint.resume', { agentId: 'nobody' }), -32004);
    assert.ok(a.message.length > 0);
    assertError(await c.call('checkpoint.resume', { agentId: 'nobody', reportNotFound: false }), -32004);
  });

  it('an agent with no checkpoints: {notFound: true} with reportNotFound true', async () => {
    const r = await shared.client.call('checkpoint.resume', { agentId: 'nobody', reportNotFound: true });
    assert.equal(r.error, undefined);
    assert.deepEqual(r.result, { notFound: true });
  });

  it('a missing checkpoint id: -32004 without the opt-in, {notFound: true} with it', async () => {
    const c = shared.client;
    await c.ok(CheckpointSave, { agentId: 'has-one', state: { ok: 1 } });
    assertError(await c.call('checkpoint.resume', { agentId: 'has-one', checkpointId: ABSENT_ID }), -32004);
    assertError(
      await c.call('checkpoint.resume', { agentId: 'has-one', checkpointId: ABSENT_ID, reportNotFound: false }),
      -32004,
    );
    const r = await c.call('checkpoint.resume', { agentId: 'has-one', checkpointId: ABSENT_ID, reportNotFound: true });
    assert.deepEqual(r.result, { notFound: true });
  });

  it('another agent\'s checkpoint id is absent for this agent, both ways', async () => {
    const c = shared.client;
    const s = await c.ok(CheckpointSave, { agentId: 'owner', state: { secret: 1 } });
    assertError(await c.call('checkpoint.resume', { agentId: 'thief', checkpointId: s.checkpointId }), -32004);
    const r = await c.call('checkpoint.resume', { agentId: 'thief', checkpointId: s.checkpointId, reportNotFound: true });
    assert.deepEqual(r.result, { notFound: true });
  });

  it('reportNotFound true does not change a found checkpoint', async () => {
    const c = shared.client;
    const s = await c.ok(CheckpointSave, { agentId: 'found', state: { v: 1 }, messageCount: 4 });
    const expected = { checkpoint: { id: s.checkpointId, createdAt: s.createdAt, state: { v: 1 }, messageCount: 4 } };
    assert.deepEqual(await c.ok(CheckpointResume, { agentId: 'found', reportNotFound: true }), expected);
    assert.deepEqual(
      await c.ok(CheckpointResume, { agentId: 'found', checkpointId: s.checkpointId, reportNotFound: true }),
      expected,
    );
  });

  it('ignores unknown params keys, as an old daemon ignores reportNotFound', async () => {
    const c = shared.client;
    const added = await c.call('memory.add', { agentId: 'unknown-keys', content: 'x', futureOption: { deep: [1] } });
    assert.equal(added.error, undefined);
    const saved = await c.call('checkpoint.save', { agentId: 'unknown-keys', state: {}, compress: true });
    assert.equal(saved.error, undefined);
    const resumed = await c.call('checkpoint.resume', { agentId: 'unknown-keys', onMissing: 'empty' });
    assert.equal(resumed.error, undefined);
    const hello = await c.call('daemon.hello', { client: 'x', capabilitiesWanted: ['y'] });
    assert.equal(hello.error, undefined);
    const status = await c.call('daemon.status', { verbose: true });
    assert.equal(status.error, undefined);
    assert.ok(await c.ok(MemoryAdd, { agentId: 'unknown-keys', content: 'y' }));
  });

  it('memory.reflect on a missing fact is -32004 (no opt-in exists there)', async () => {
    assertError(
      await shared.client.call('memory.reflect', { agentId: 'nobody', action: 'delete', factId: ABSENT_ID }),
      -32004,
    );
  });
});
