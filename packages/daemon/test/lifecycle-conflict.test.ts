// docs/architecture.md "Lifecycle" (startup) and issue 2: a stale socket file
// with no listener is replaced; a second daemon on the same socket (live)
// or on the same data dir (LevelDB lock) exits non-zero within 5 s, its last
// stderr line naming the socket or data dir, with no stack trace, while the
// first daemon keeps serving.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonHello, MemoryAdd, MemoryList } from '@memoryd/protocol';
import { canConnect, cleanupAll, type DaemonHandle, pidsMentioning, spawnDaemon, startDaemon, tempDir, waitFor, withTimeout } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';

after(cleanupAll);

function assertRefused(d: DaemonHandle, started: number, mustMention: string): void {
  const exit = d.exit();
  assert.ok(exit, 'the newcomer exited');
  assert.ok(Date.now() - started < 5000, `exited within 5 s (took ${Date.now() - started} ms)`);
  assert.notEqual(exit.code, 0, `non-zero exit: ${JSON.stringify(exit)}`);
  assert.equal(exit.signal, null);
  const last = d.lastStderrLine();
  assert.match(last, /^memoryd: cannot start: /, `last stderr line: ${last}`);
  assert.ok(last.includes(mustMention), `last line names ${mustMention}: ${last}`);
  assert.doesNotMatch(d.stderr(), /^\s+at /m, `no stack trace in:\n${d.stderr()}`);
}

async function assertStillServes(d: DaemonHandle): Promise<void> {
  const c = await connect(d.socket);
  const hello = await c.ok(DaemonHello, {});
  assert.equal(hello.pid, d.pid, 'the first daemon, not the newcomer, answers');
  c.socket.destroy();
}

describe('stale socket', () => {
  it('a socket file left by a SIGKILLed daemon is replaced', async () => {
    const a = await startDaemon();
    const { socket, dataDir } = a;
    const c = await connect(socket);
    const added = await c.ok(MemoryAdd, { agentId: 'stale', content: 'before the crash' });
    await a.kill();
    assert.equal(statSync(socket).isSocket(), true, 'the crash left the socket file');
    assert.equal(await canConnect(socket), false);

    const b = await startDaemon({ socket, dataDir });
    const c2 = await connect(socket);
    assert.equal((await c2.ok(DaemonHello, {})).pid, b.pid);
    assert.deepEqual((await c2.ok(MemoryList, { agentId: 'stale' })).facts.map((f) => f.id), [added.factId]);
    c2.socket.destroy();
    assert.deepEqual(await b.stop(), { code: 0, signal: null });
  });

  it('a socket file bound by another process that never listened is replaced', async () => {
    const dir = tempDir();
    const socket = join(dir, 'b.sock');
    // python3 binds without listening, then exits: a socket file nobody serves.
    execFileSync('python3', ['-c', 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])', socket], {
      timeout: 10_000,
    });
    assert.equal(statSync(socket).isSocket(), true);
    const d = await startDaemon({ socket });
    const c = await connect(socket);
    assert.equal((await c.ok(DaemonHello, {})).pid, d.pid);
    c.socket.destroy();
    await d.stop();
  });
});

describe('a second daemon', () => {
  it('on a live socket (other data dir) exits non-zero within 5 s naming the socket', async () => {
    const first = await startDaemon();
    const started = Date.now();
    const second = await spawnDaemon({ socket: first.socket, dataDir: join(tempDir(), 'other'), wait: 'exit', timeoutMs: 5000 });
    assertRefused(second, started, first.socket);
    await assertStillServes(first);
    assert.equal(existsSync(first.socket), true, 'the newcomer did not remove the live socket');
    assert.deepEqual(await first.stop(), { code: 0, signal: null });
  });

  it('on the same data dir (other socket) exits non-zero within 5 s naming the data dir', async () => {
    const first = await startDaemon();
    const otherSocket = join(tempDir(), 'o.sock');
    const started = Date.now();
    const second = await spawnDaemon({ socket: otherSocket, dataDir: first.dataDir, wait: 'exit', timeoutMs: 5000 });
    assertRefused(second, started, first.dataDir);
    assert.equal(await canConnect(otherSocket), false, 'the loser does not serve');
    assert.equal(existsSync(otherSocket), false, 'the loser leaves no socket file');
    await assertStillServes(first);
    assert.deepEqual(await first.stop(), { code: 0, signal: null });
  });

  it('six daemons started at once on one stale socket with six data dirs: exactly one serves, the rest exit naming the socket (5 trials)', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const dir = tempDir();
      const socket = join(dir, 'race.sock');
      // A stale socket file: its daemon was killed and never removed it.
      const killed = await startDaemon({ socket, dataDir: join(dir, 'killed') });
      await killed.kill();
      assert.equal(existsSync(socket), true, 'the killed daemon left its socket file');
      const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => spawnDaemon({ socket, dataDir: join(dir, `data-${i}`), wait: 'none' })));
      await waitFor(() => racers.filter((r) => r.exit() !== undefined).length >= 5, 20_000, `five of six racers to give up (trial ${trial})`);
      const alive = racers.filter((r) => r.exit() === undefined);
      assert.equal(alive.length, 1, `exactly one daemon left running (trial ${trial})`);
      const winner = alive[0]!;
      for (const loser of racers.filter((r) => r !== winner)) {
        assert.equal(loser.exit()?.code, 1, loser.stderr());
        assert.match(loser.lastStderrLine(), new RegExp(`^memoryd: cannot start: socket ${socket.replace(/[.]/g, '\\.')} `));
      }
      await waitFor(() => canConnect(socket), 10_000, 'the winner to listen');
      const c = await connect(socket);
      assert.equal((await c.ok(DaemonHello, {})).pid, winner.pid, 'the one left running answers');
      c.socket.destroy();
      assert.deepEqual(await winner.stop(), { code: 0, signal: null });
      assert.deepEqual(pidsMentioning('memoryd.js', socket), [], 'no orphan');
    }
  });

  it('two daemons started at once on one data dir and socket end with exactly one serving', async () => {
    const dir = tempDir();
    const socket = join(dir, 'race.sock');
    const dataDir = join(dir, 'data');
    const [x, y] = await Promise.all([
      spawnDaemon({ socket, dataDir, wait: 'none' }),
      spawnDaemon({ socket, dataDir, wait: 'none' }),
    ]);
    const first = await withTimeout(
      Promise.race([x!.exited.then(() => x!), y!.exited.then(() => y!)]),
      10_000,
      'one of the two racing daemons to give up',
    );
    const winner = first === x ? y! : x!;
    assert.notEqual(first.exit()?.code, 0);
    assert.match(first.lastStderrLine(), /^memoryd: cannot start: /);
    await waitFor(() => canConnect(socket), 10_000, 'the winner to listen');
    assert.equal(winner.exit(), undefined, 'the winner is still running');
    const c = await connect(socket);
    assert.equal((await c.ok(DaemonHello, {})).pid, winner.pid);
    c.socket.destroy();
    assert.deepEqual(await winner.stop(), { code: 0, signal: null });
  });
});
