// docs/architecture.md "Lifecycle" (startup) and docs/protocol.md
// "Framing", the socket file: the default path under XDG_RUNTIME_DIR
// (else TMPDIR), a created socket directory is 0700 and the
// socket 0600; an existing default directory that is not ours or admits
// anyone else makes the daemon exit non-zero within 5 s without listening
// or changing it; an explicit path is not second-guessed; socket paths are
// limited to 107 bytes with a clear one-line error past that. A socket
// file deleted under a running daemon is bound again by it (ADR 0035).
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonStatus, MemoryAdd, MemoryList } from '@memoryd/protocol';
import { canConnect, cleanupAll, type DaemonHandle, spawnDaemon, startDaemon, tempDir, waitFor } from '@memoryd/test-support';
import { assertServing, connect } from './helpers/rpc.js';

after(cleanupAll);

const mode = (p: string) => statSync(p).mode & 0o777;
const uid = process.getuid!();

/** Asserts a refused start: non-zero exit within 5 s, one plain last line, no stack trace. */
function assertRefused(d: DaemonHandle, started: number, mustMention: string): void {
  const exit = d.exit();
  assert.ok(exit, 'the daemon exited');
  assert.ok(Date.now() - started < 5000, `exited within 5 s (took ${Date.now() - started} ms)`);
  assert.notEqual(exit.code, 0, `non-zero exit: ${JSON.stringify(exit)}\n${d.stderr()}`);
  assert.equal(exit.signal, null);
  const last = d.lastStderrLine();
  assert.match(last, /^memoryd: cannot start: /, `last stderr line: ${last}`);
  assert.ok(last.includes(mustMention), `last line names ${mustMention}: ${last}`);
  assert.doesNotMatch(d.stderr(), /^\s+at /m, 'no stack trace');
}

async function stopOk(d: DaemonHandle): Promise<void> {
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
}

describe('default socket path', () => {
  it('is $XDG_RUNTIME_DIR/memoryd/memoryd.sock, in a created 0700 dir, with mode 0600', async () => {
    const run = tempDir();
    const socket = join(run, 'memoryd', 'memoryd.sock');
    const d = await startDaemon({ socket, socketFlag: false, env: { XDG_RUNTIME_DIR: run } });
    assert.equal(statSync(socket).isSocket(), true);
    assert.equal(mode(socket), 0o600);
    assert.equal(mode(join(run, 'memoryd')), 0o700);
    const c = await connect(socket);
    assert.equal(((await c.call('daemon.status')).result as { socket: string }).socket, socket);
    c.socket.destroy();
    await stopOk(d);
    assert.equal(existsSync(socket), false, 'socket removed on stop');
  });

  it('without XDG_RUNTIME_DIR is $TMPDIR/memoryd-<uid>/memoryd.sock, dir 0700', async () => {
    const tmp = tempDir();
    const socket = join(tmp, `memoryd-${uid}`, 'memoryd.sock');
    const d = await startDaemon({ socket, socketFlag: false, env: { XDG_RUNTIME_DIR: undefined, TMPDIR: tmp } });
    assert.equal(mode(socket), 0o600);
    assert.equal(mode(join(tmp, `memoryd-${uid}`)), 0o700);
    await stopOk(d);
  });

  it('uses an existing default dir that is ours and 0700, leaving it as it is', async () => {
    const run = tempDir();
    mkdirSync(join(run, 'memoryd'), { mode: 0o700 });
    const d = await startDaemon({ socket: join(run, 'memoryd', 'memoryd.sock'), socketFlag: false, env: { XDG_RUNTIME_DIR: run } });
    assert.equal(mode(join(run, 'memoryd')), 0o700);
    await stopOk(d);
  });

  const unsafe: Array<[string, number, number | undefined]> = [
    ['0755', 0o755, undefined],
    ['0750 (group bits)', 0o750, undefined],
    ['0701 (others may traverse)', 0o701, undefined],
    ['owned by another user', 0o700, 65534],
  ];
  for (const [name, dirMode, owner] of unsafe) {
    it(`refuses an existing default dir that is ${name}, without listening or touching it`, async () => {
      const run = tempDir();
      const dir = join(run, 'memoryd');
      mkdirSync(dir);
      // chmod, not mkdir's mode: the umask must not soften the case.
      chmodSync(dir, dirMode);
      if (owner !== undefined) chownSync(dir, owner, owner);
      const started = Date.now();
      const d = await spawnDaemon({
        socket: join(dir, 'memoryd.sock'),
        socketFlag: false,
        env: { XDG_RUNTIME_DIR: run },
        wait: 'exit',
        timeoutMs: 5000,
      });
      assertRefused(d, started, dir);
      assert.equal(existsSync(join(dir, 'memoryd.sock')), false, 'never listened');
      assert.equal(mode(dir), dirMode, 'mode unchanged');
      assert.equal(statSync(dir).uid, owner ?? uid, 'owner unchanged');
    });
  }
});

describe('explicit socket path', () => {
  it('is not second-guessed: a 0755 parent is used as it is; the socket is still 0600', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const socket = join(dir, 's.sock');
    const d = await startDaemon({ socket });
    assert.equal(mode(dir), 0o755);
    assert.equal(mode(socket), 0o600);
    await stopOk(d);
  });

  it('creates missing directories 0700', async () => {
    const base = tempDir();
    const socket = join(base, 'n1', 'n2', 's.sock');
    const d = await startDaemon({ socket });
    assert.equal(mode(join(base, 'n1')), 0o700);
    assert.equal(mode(join(base, 'n1', 'n2')), 0o700);
    await stopOk(d);
  });

  it('can be given by MEMORYD_SOCKET and MEMORYD_DATA_DIR', async () => {
    const base = tempDir();
    const socket = join(base, 'env.sock');
    const dataDir = join(base, 'envdata');
    const d = await startDaemon({
      socket,
      dataDir,
      socketFlag: false,
      dataDirFlag: false,
      env: { MEMORYD_SOCKET: socket, MEMORYD_DATA_DIR: dataDir },
    });
    const c = await connect(socket);
    const s = (await c.call('daemon.status')).result as { socket: string; dataDir: string };
    assert.deepEqual([s.socket, s.dataDir], [socket, dataDir]);
    assert.equal(existsSync(join(dataDir, 'store')), true, 'LevelDB lives in <data-dir>/store');
    c.socket.destroy();
    await stopOk(d);
  });
});

describe('socket path length', () => {
  it('serves on a path of exactly 107 bytes', async () => {
    const base = tempDir();
    const socket = join(base, 'x'.repeat(107 - base.length - 1));
    assert.equal(Buffer.byteLength(socket), 107);
    const d = await startDaemon({ socket });
    const c = await connect(socket);
    await assertServing(c);
    c.socket.destroy();
    await stopOk(d);
  });

  it('refuses a path of 108 bytes with a one-line reason naming it', async () => {
    const base = tempDir();
    const socket = join(base, 'y'.repeat(108 - base.length - 1));
    assert.equal(Buffer.byteLength(socket), 108);
    const started = Date.now();
    const d = await spawnDaemon({ socket, wait: 'exit', timeoutMs: 5000 });
    assertRefused(d, started, socket);
    assert.equal(await canConnect(socket), false);
    assert.equal(existsSync(socket), false);
  });
});

describe('a socket file deleted while the daemon runs (a tmp cleaner)', () => {
  it('is bound again at once, by the same daemon, which keeps its connections and data', async () => {
    const dir = tempDir();
    const socket = join(dir, 'run', 'd.sock');
    const d = await startDaemon({ socket });
    const kept = await connect(socket);
    const added = await kept.ok(MemoryAdd, { agentId: 'tmp-cleaner', content: 'kept through a deleted socket file' });
    unlinkSync(socket);
    await waitFor(() => canConnect(socket), 5_000, 'the socket file bound again');
    const fresh = await connect(socket);
    assert.equal((await fresh.ok(DaemonStatus, {})).pid, d.pid, 'the same daemon answers');
    assert.deepEqual((await fresh.ok(MemoryList, { agentId: 'tmp-cleaner' })).facts.map((f) => f.id), [added.factId]);
    await assertServing(kept);
    assert.equal(mode(socket), 0o600);
    assert.ok(d.stderr().includes('the socket file was deleted; it is bound again'));

    // The whole directory, the socket lock's beside it, as a cleaner of old directories would
    // (moved away first: the daemon may bind again while a recursive delete is still walking it).
    renameSync(join(dir, 'run'), join(dir, 'gone'));
    rmSync(join(dir, 'gone'), { recursive: true, force: true });
    await waitFor(() => canConnect(socket), 5_000, 'the socket bound again in a directory made again');
    const again = await connect(socket);
    assert.equal((await again.ok(DaemonStatus, {})).pid, d.pid);
    for (const c of [kept, fresh, again]) c.socket.destroy();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
    assert.equal(existsSync(socket), false, 'removed at the stop');
  });

  it('a second daemon on a socket another holds names the holder\'s pid', async () => {
    const dir = tempDir();
    const socket = join(dir, 'd.sock');
    const first = await startDaemon({ socket, dataDir: join(dir, 'one') });
    const second = await spawnDaemon({ socket, dataDir: join(dir, 'two'), wait: 'exit' });
    assert.notEqual((await second.exited).code, 0);
    assert.match(second.lastStderrLine(), new RegExp(`^memoryd: cannot start: socket .*d\\.sock is taken by another memoryd \\(pid ${first.pid}\\)`));
    await first.stop();
  });
});
