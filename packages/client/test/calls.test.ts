import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import {
  CheckpointResume,
  CheckpointSave,
  DaemonStatus,
  ErrorCodes,
  MemoryAdd,
  MemoryReflect,
  MemorySearch,
} from '@memoryd/protocol';
import { cleanEnv, cleanupAll, type DaemonHandle, waitFor, withTimeout } from '@memoryd/test-support';
import { startDaemon } from './helpers/daemon.js';
import { rawCall } from './helpers/raw-rpc.js';

after(cleanupAll);

/** The rejection of `p`, failing when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return withTimeout(p, 10_000, 'the call').then(
    (v) => assert.fail(`expected a rejection, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
}

describe('typed calls against a real daemon', () => {
  let daemon: DaemonHandle;
  let client: DaemonClient;
  before(async () => {
    daemon = await startDaemon();
    client = new DaemonClient({ socket: daemon.socket, autostart: false, env: cleanEnv() });
  });
  after(() => client.close());

  it('memory.add then memory.search round trip (the first call connects)', async () => {
    const params = { agentId: 'calls-a', content: 'The kettle is in the left cupboard', tags: ['home'] };
    const added = await withTimeout(client.call(MemoryAdd, params), 10_000, 'add');
    assert.match(added.factId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(added.duplicate, undefined);
    const again = await client.call(MemoryAdd, { agentId: 'calls-a', content: '  the KETTLE is in the left cupboard ' });
    assert.equal(again.factId, added.factId);
    assert.equal(again.duplicate, true);
    const found = await client.call(MemorySearch, { agentId: 'calls-a', query: 'kettle' });
    assert.equal(found.facts.length, 1);
    assert.equal(found.facts[0]!.id, added.factId);
    assert.equal(found.facts[0]!.content, 'The kettle is in the left cupboard');
    assert.deepEqual(found.facts[0]!.tags, ['home']);
  });

  it('checkpoint.save then resume; absence with reportNotFound is a result', async () => {
    const state = { step: 3, todo: ['a', 'b'], nested: { ok: true, text: 'é — 😀' } };
    const saved = await client.call(CheckpointSave, { agentId: 'calls-b', state, messageCount: 7 });
    const resumed = await client.call(CheckpointResume, { agentId: 'calls-b', reportNotFound: true });
    assert.ok('checkpoint' in resumed && resumed.checkpoint !== undefined);
    assert.equal(resumed.checkpoint.id, saved.checkpointId);
    assert.equal(resumed.checkpoint.createdAt, saved.createdAt);
    assert.deepEqual(resumed.checkpoint.state, state);
    assert.equal(resumed.checkpoint.messageCount, 7);
    const missing = await client.call(CheckpointResume, { agentId: 'calls-nobody', reportNotFound: true });
    assert.deepEqual(missing, { notFound: true });
  });

  it('many calls in flight at once each get their own answer', async () => {
    const contents = Array.from({ length: 50 }, (_, i) => `parallel fact number ${i}`);
    const calls = contents.map((content) => client.call(MemoryAdd, { agentId: 'calls-c', content }));
    const results = await withTimeout(Promise.all(calls), 20_000, 'adds');
    assert.equal(new Set(results.map((r) => r.factId)).size, 50);
    const hits = await client.call(MemorySearch, { agentId: 'calls-c', query: 'number', limit: 100 });
    assert.equal(hits.facts.length, 50);
  });

  it('a -32602 answer becomes Rpc with rpcCode, the daemon message and data {field, reason}', async () => {
    const params = { agentId: 'bad agent id', content: 'x' };
    const err = await rejection(client.call(MemoryAdd, params));
    assert.ok(isClientError(err, ClientErrorCodes.Rpc));
    assert.equal(err.rpcCode, ErrorCodes.InvalidParams);
    const wire = await rawCall(daemon.socket, MemoryAdd.method, params);
    assert.equal(err.message, wire.error!.message);
    assert.deepEqual(err.data, wire.error!.data);
    const data = err.data as { field: string; reason: string };
    assert.equal(data.field, 'agentId');
    assert.equal(typeof data.reason, 'string');
  });

  it('-32004 (absence without opt-in) is an Rpc failure, never a result', async () => {
    const params = { agentId: 'calls-nobody' };
    const err = await rejection(client.call(CheckpointResume, params));
    assert.ok(isClientError(err, ClientErrorCodes.Rpc));
    assert.equal(err.rpcCode, ErrorCodes.NotFound);
    const wire = await rawCall(daemon.socket, CheckpointResume.method, params);
    assert.equal(err.message, wire.error!.message);
    const factId = '01ARZ3NDEKTSV4RRFFQ69G5FAV'; // well-formed, never stored
    const reflect = await rejection(client.call(MemoryReflect, { agentId: 'calls-a', action: 'delete', factId }));
    assert.ok(isClientError(reflect, ClientErrorCodes.Rpc));
    assert.equal(reflect.rpcCode, ErrorCodes.NotFound);
  });

  it('an error leaves the connection usable', async () => {
    await rejection(client.call(MemoryAdd, { agentId: '', content: 'x' }));
    const status = await client.call(DaemonStatus, {});
    assert.equal(status.pid, daemon.pid);
    assert.equal(status.connections, 1);
  });
});

describe('over the connection cap', () => {
  it('the daemon\'s -32011 (id null) fails the connect as Rpc; connected clients are unaffected', async () => {
    const daemon = await startDaemon({ args: ['--max-connections', '2'] });
    const clients = [0, 1, 2].map(() => new DaemonClient({ socket: daemon.socket, autostart: false, env: cleanEnv() }));
    const [first, second, third] = clients as [DaemonClient, DaemonClient, DaemonClient];
    try {
      await withTimeout(first.connect(), 10_000, 'first connect');
      // The start-up probe's connection may still count for a moment.
      await waitFor(async () => (await first.call(DaemonStatus, {})).connections === 1, 5_000, 'only the first connection');
      await withTimeout(second.connect(), 10_000, 'second connect');
      const err = await rejection(third.connect());
      assert.ok(isClientError(err, ClientErrorCodes.Rpc));
      assert.equal(err.rpcCode, ErrorCodes.Overloaded);
      assert.equal(third.hello, undefined);
      assert.equal((await first.call(DaemonStatus, {})).pid, daemon.pid);
      assert.equal((await second.call(DaemonStatus, {})).connections, 2);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
