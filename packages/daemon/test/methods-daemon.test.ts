// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Methods": daemon.hello, daemon.status (its counts follow
// adds, deletes and checkpoints; `connections` follows open sockets),
// agent.list, and daemon.shutdown ({ok: true}, then a graceful stop that
// exits 0 and removes the socket).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AgentList, CheckpointSave, DaemonHello, DaemonShutdown, DaemonStatus, MemoryAdd, MemoryReflect } from '@memoryd/protocol';
import { startDaemon, waitFor, withTimeout } from '@memoryd/test-support';
import { useDaemon } from './helpers/fixture.js';
import { connect } from './helpers/rpc.js';
import { assertKeys, assertRecentTime, PACKAGE_VERSION } from './helpers/shapes.js';

const shared = useDaemon();

describe('daemon.hello', () => {
  it('returns version, protocol 1, capabilities with reportNotFound, pid and start time', async () => {
    const r = await shared.client.ok(DaemonHello, { client: 'test', clientVersion: '1.2.3' });
    assertKeys(r, ['daemonVersion', 'protocolVersion', 'capabilities', 'pid', 'startedAt'], 'hello result');
    assert.equal(r.daemonVersion, PACKAGE_VERSION);
    assert.equal(r.protocolVersion, 1);
    assert.ok(Array.isArray(r.capabilities) && r.capabilities.every((c) => typeof c === 'string'));
    assert.ok(r.capabilities.includes('reportNotFound'));
    assert.equal(r.pid, shared.daemon.pid);
    assertRecentTime(r.startedAt, 120_000, 'startedAt');
  });

  it('accepts absent params and an empty object alike', async () => {
    const a = await shared.client.call('daemon.hello');
    const b = await shared.client.call('daemon.hello', {});
    assert.equal(a.error, undefined);
    assert.deepEqual(a.result, b.result);
  });
});

describe('daemon.status', () => {
  it('reports version, pid, uptime, socket, data dir, store and connections', async () => {
    const r = await shared.client.ok(DaemonStatus, {});
    assertKeys(
      r,
      ['daemonVersion', 'pid', 'uptimeMs', 'socket', 'dataDir', 'store', 'connections', 'facts', 'checkpoints', 'agents', 'health'],
      'status result',
    );
    assert.equal(r.daemonVersion, PACKAGE_VERSION);
    assert.equal(r.pid, shared.daemon.pid);
    assert.equal(r.socket, shared.daemon.socket);
    assert.equal(r.dataDir, shared.daemon.dataDir);
    // The suite runs on each backend: the daemon says which one serves it.
    assert.equal(r.store, process.env['MEMORYD_TEST_STORE'] === 'postgres' ? 'postgres' : 'level');
    assert.ok(Number.isInteger(r.uptimeMs) && r.uptimeMs >= 0);
    assert.equal(r.health, 'ok');
    const later = await shared.client.ok(DaemonStatus, {});
    assert.ok(later.uptimeMs >= r.uptimeMs, 'uptime does not go backwards');
  });

  it('counts open connections, up and down', async () => {
    const c = shared.client;
    const base = (await c.ok(DaemonStatus, {})).connections;
    assert.ok(base >= 1);
    const extra = await shared.connect();
    await waitFor(async () => (await c.ok(DaemonStatus, {})).connections === base + 1, 5000, 'connections + 1');
    extra.socket.destroy();
    await waitFor(async () => (await c.ok(DaemonStatus, {})).connections === base, 5000, 'connections back');
  });

  it('counts current facts, checkpoints and distinct agents', async () => {
    const c = shared.client;
    const before = await c.ok(DaemonStatus, {});
    const f1 = await c.ok(MemoryAdd, { agentId: 'status-a', content: 'first counted fact' });
    await c.ok(MemoryAdd, { agentId: 'status-a', content: 'second counted fact' });
    await c.ok(MemoryAdd, { agentId: 'status-a', content: 'SECOND counted   fact' }); // duplicate: not counted
    await c.ok(CheckpointSave, { agentId: 'status-b', state: { n: 1 } });
    await c.ok(CheckpointSave, { agentId: 'status-b', state: { n: 2 } });
    let s = await c.ok(DaemonStatus, {});
    assert.equal(s.facts, before.facts + 2);
    assert.equal(s.checkpoints, before.checkpoints + 2);
    assert.equal(s.agents, before.agents + 2);
    // An update replaces a current fact (history is not counted); a delete removes one.
    await c.ok(MemoryReflect, { agentId: 'status-a', action: 'update', factId: f1.factId, content: 'first fact, revised' });
    s = await c.ok(DaemonStatus, {});
    assert.equal(s.facts, before.facts + 2);
    const list = await c.ok(AgentList, {});
    const a = list.agents.find((x) => x.agentId === 'status-a');
    assert.deepEqual(a, { agentId: 'status-a', facts: 2, checkpoints: 0 });
  });
});

describe('agent.list', () => {
  it('lists agents with a current fact or a checkpoint, with their counts', async () => {
    const c = shared.client;
    const x = await c.ok(MemoryAdd, { agentId: 'al-x', content: 'x fact one' });
    await c.ok(MemoryAdd, { agentId: 'al-x', content: 'x fact two' });
    await c.ok(CheckpointSave, { agentId: 'al-y', state: {} });
    const gone = await c.ok(MemoryAdd, { agentId: 'al-z', content: 'soon deleted' });
    await c.ok(MemoryReflect, { agentId: 'al-z', action: 'delete', factId: gone.factId });
    const r = await c.ok(AgentList, {});
    assertKeys(r, ['agents'], 'agent.list result');
    for (const a of r.agents) assertKeys(a, ['agentId', 'facts', 'checkpoints'], 'agent summary');
    const mine = r.agents.filter((a) => a.agentId.startsWith('al-')).sort((p, q) => p.agentId.localeCompare(q.agentId));
    assert.deepEqual(mine, [
      { agentId: 'al-x', facts: 2, checkpoints: 0 },
      { agentId: 'al-y', facts: 0, checkpoints: 1 },
    ]);
    await c.ok(MemoryReflect, { agentId: 'al-x', action: 'delete', factId: x.factId });
    const after2 = await c.ok(AgentList, {});
    assert.deepEqual(
      after2.agents.find((a) => a.agentId === 'al-x'),
      { agentId: 'al-x', facts: 1, checkpoints: 0 },
    );
    const total = await c.ok(DaemonStatus, {});
    assert.equal(total.agents, after2.agents.length, 'status.agents counts the same agents agent.list lists');
  });
});

describe('daemon.shutdown', () => {
  it('answers {ok: true}, then exits 0 within 5 s and removes its socket', async () => {
    const d = await startDaemon();
    const c = await connect(d.socket);
    const r = await c.ok(DaemonShutdown, {});
    assert.deepEqual(r, { ok: true });
    const exit = await withTimeout(d.exited, 5000, 'exit after daemon.shutdown');
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(existsSync(d.socket), false, 'socket file removed');
    await withTimeout(c.closed, 5000, 'connection closed by the stopping daemon');
  });
});
