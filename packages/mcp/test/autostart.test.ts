import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { canConnect, cleanupAll, DAEMON_BIN, daemonPaths, isAlive, pidsMentioning, tempDir, terminate, trackPid, waitFor } from '@memoryd/test-support';
import { startDaemon } from './helpers/daemon.js';
import { assertSuccess, overStdio, type StdioSession } from './helpers/mcp.js';
import { daemonStatus } from './helpers/ndjson.js';

// docs/architecture.md "Connecting and autostart", through the built bin: the first tool call
// starts memoryd when none answers; two shims starting at once end with one
// daemon and both succeed; a daemon restart between two calls is survived.

const sessions: StdioSession[] = [];
/** Daemons the shims started (detached, not our children): stopped by pid. */
const autostarted = new Set<number>();

async function shim(socket: string, dataDir: string, extra: string[] = []): Promise<StdioSession> {
  const s = await overStdio(['--socket', socket, '--data-dir', dataDir, ...extra], { MEMORYD_BIN: DAEMON_BIN });
  sessions.push(s);
  return s;
}

/** Every memoryd running on `dataDir` (not the shims, whose args name it too), tracked for cleanup by pid. */
function daemonsOn(dataDir: string): number[] {
  const pids = pidsMentioning(DAEMON_BIN, dataDir);
  for (const pid of pids) trackPid(pid);
  return pids;
}

describe('autostart through the shim', () => {
  afterEach(async () => {
    await Promise.allSettled(sessions.splice(0).map((s) => s.close()));
    for (const pid of autostarted) await terminate(pid);
    autostarted.clear();
  });
  after(cleanupAll);

  test('the first call starts memoryd with the same socket and data dir', async () => {
    const { socket, dataDir } = daemonPaths();
    const s = await shim(socket, dataDir);
    assert.deepEqual(daemonsOn(dataDir), [], 'initialize and tools/list start nothing');
    const added = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'auto', content: 'started on demand' }));
    assert.equal(added.text, `Stored fact ${added.structured['fact_id']} for agent "auto".`);
    const status = await daemonStatus(socket);
    autostarted.add(status.pid);
    trackPid(status.pid);
    assert.equal(status.dataDir, dataDir);
    assert.equal(status.socket, socket);
    assert.equal(status.facts, 1);
    assert.notEqual(status.pid, s.pid, 'the daemon is its own process');
    assert.ok(isAlive(status.pid));
  });

  test('--no-autostart starts nothing', async () => {
    const { socket, dataDir } = daemonPaths();
    const s = await shim(socket, dataDir, ['--no-autostart']);
    const r = await s.call('memory_add', { agent_id: 'auto', content: 'x' });
    assert.equal(r.isError, true);
    assert.ok((r.content[0] as { text: string }).text.startsWith(`memory daemon unavailable at ${socket}: `));
    assert.deepEqual(daemonsOn(dataDir), []);
  });

  test('two shims calling at once with no daemon: both succeed, one daemon', async () => {
    const { socket, dataDir } = daemonPaths();
    const [a, b] = await Promise.all([shim(socket, dataDir), shim(socket, dataDir)]);
    const [ra, rb] = await Promise.all([
      a!.call('memory_add', { agent_id: 'race', content: 'from shim a' }),
      b!.call('memory_add', { agent_id: 'race', content: 'from shim b' }),
    ]);
    assertSuccess(a!, 'memory_add', ra);
    assertSuccess(b!, 'memory_add', rb);
    const status = await daemonStatus(socket);
    autostarted.add(status.pid);
    // The loser of the LevelDB lock exits on its own; wait (bounded) for it.
    await waitFor(() => daemonsOn(dataDir).length === 1, 10_000, 'one memoryd on the data dir');
    assert.deepEqual(daemonsOn(dataDir), [status.pid]);
    // Both writes reached the one store.
    const found = assertSuccess(a!, 'memory_search', await a!.call('memory_search', { agent_id: 'race', query: 'shim' }));
    assert.equal(found.structured['count'], 2);
  });

  test('a daemon restart between two calls of one shim', async () => {
    const paths = { socket: join(tempDir(), 'r.sock'), dataDir: join(tempDir(), 'data') };
    const first = await startDaemon(paths);
    const s = await shim(paths.socket, paths.dataDir, ['--no-autostart']);
    const added = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'restart', content: 'survives a restart' }));
    await first.stop();
    const second = await startDaemon(paths);
    try {
      assert.notEqual(second.pid, first.pid);
      const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'restart', query: 'restart' }));
      assert.deepEqual(
        (found.structured['facts'] as Array<{ id: string }>).map((f) => f.id),
        [added.structured['fact_id']],
      );
    } finally {
      await second.stop();
    }
  });

  test('a daemon killed between two calls is autostarted again', async () => {
    const { socket, dataDir } = daemonPaths();
    const s = await shim(socket, dataDir);
    assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'again', content: 'before the crash' }));
    const before = await daemonStatus(socket);
    trackPid(before.pid);
    process.kill(before.pid, 'SIGKILL');
    // Gone means its socket refuses: the leader thread turns zombie while
    // other threads may still hold the listening socket for a moment.
    await waitFor(async () => !isAlive(before.pid) && !(await canConnect(socket)), 5000, 'the killed daemon to go');
    const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'again', query: 'crash' }));
    assert.equal(found.structured['count'], 1);
    const after = await daemonStatus(socket);
    autostarted.add(after.pid);
    assert.notEqual(after.pid, before.pid);
  });
});
