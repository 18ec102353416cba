import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { Capabilities, DaemonStatus, MemoryAdd, MemorySearch } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, DAEMON_BIN, isAlive, tempDir, trackPid, waitFor, withTimeout } from '@memoryd/test-support';
import { startDaemon } from './helpers/daemon.js';

// docs/architecture.md "Connecting and autostart": a daemon restart is
// survived; the client connects again on the next call. Nothing is retried on its own: a call either reaches a
// daemon or fails.

after(cleanupAll);

describe('daemon restart', () => {
  it('SIGTERM, then a new daemon: the next call reconnects (new pid, same data); none between is Unavailable', async () => {
    const tmp = tempDir();
    const socket = join(tmp, 'd.sock');
    const dataDir = join(tmp, 'data');
    const first = await startDaemon({ socket, dataDir });
    const client = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
    try {
      await withTimeout(client.call(MemoryAdd, { agentId: 'r', content: 'survives a restart' }), 10_000, 'add');
      assert.equal(client.hello?.pid, first.pid);
      await first.stop();
      await waitFor(() => !client.hasCapability(Capabilities.reportNotFound), 5_000, 'the client to see the close');
      await assert.rejects(withTimeout(client.call(DaemonStatus, {}), 5_000, 'status'), (e: unknown) =>
        isClientError(e, ClientErrorCodes.Unavailable),
      );
      const second = await startDaemon({ socket, dataDir });
      const found = await withTimeout(client.call(MemorySearch, { agentId: 'r', query: 'restart' }), 10_000, 'search');
      assert.equal(found.facts.length, 1);
      assert.equal(client.hello?.pid, second.pid);
      assert.notEqual(second.pid, first.pid);
    } finally {
      await client.close();
    }
  });

  it('SIGKILL (stale socket left behind): the next call autostarts a new daemon', async () => {
    const tmp = tempDir();
    const socket = join(tmp, 'd.sock');
    const dataDir = join(tmp, 'data');
    const first = await startDaemon({ socket, dataDir });
    const client = new DaemonClient({ socket, dataDir, memorydBin: DAEMON_BIN, env: cleanEnv(), startTimeoutMs: 15_000 });
    try {
      await withTimeout(client.call(MemoryAdd, { agentId: 'k', content: 'acknowledged before the kill' }), 10_000, 'add');
      await first.kill();
      const found = await withTimeout(client.call(MemorySearch, { agentId: 'k', query: 'acknowledged' }), 20_000, 'search');
      const pid = client.hello!.pid;
      trackPid(pid);
      assert.notEqual(pid, first.pid);
      assert.ok(isAlive(pid));
      assert.equal(found.facts.length, 1);
    } finally {
      await client.close();
    }
  });

  it('a daemon restarted by another client in between is simply reconnected to', async () => {
    const tmp = tempDir();
    const socket = join(tmp, 'd.sock');
    const dataDir = join(tmp, 'data');
    const options = { socket, dataDir, memorydBin: DAEMON_BIN, env: cleanEnv(), startTimeoutMs: 15_000 };
    const a = new DaemonClient(options);
    const b = new DaemonClient(options);
    try {
      const first = await withTimeout(a.connect(), 20_000, 'connect a');
      trackPid(first.pid);
      process.kill(first.pid, 'SIGTERM');
      await waitFor(() => !isAlive(first.pid), 10_000, 'the first daemon to exit');
      const second = await withTimeout(b.connect(), 20_000, 'connect b');
      trackPid(second.pid);
      const status = await withTimeout(a.call(DaemonStatus, {}), 10_000, 'status via a');
      assert.equal(status.pid, second.pid);
      assert.equal(a.hello?.pid, second.pid);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
