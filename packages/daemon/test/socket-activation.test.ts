// docs/architecture.md "Lifecycle" (startup, step 2): under systemd socket
// activation (LISTEN_FDS) the daemon serves the inherited socket instead
// of binding its own. A tiny
// python3 launcher plays systemd: it binds and listens, puts the socket on
// fd 3, sets LISTEN_FDS=1 and LISTEN_PID to its own pid, and execs node
// (exec keeps the pid, as systemd's fork+exec does). As in sd_listen_fds(3),
// a LISTEN_PID naming another process must be ignored.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonHello, DaemonStatus, MemoryAdd, MemoryList } from '@memoryd/protocol';
import { cleanupAll, startDaemon, tempDir } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';

after(cleanupAll);

const LAUNCHER = `
import os, socket, sys
path, pid_mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o600)
s.listen(64)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ['LISTEN_FDS'] = '1'
os.environ['LISTEN_PID'] = str(os.getpid() if pid_mode == 'self' else 1)
os.execv(sys.argv[3], sys.argv[3:])
`;

describe('socket activation', () => {
  it('serves the inherited socket and binds none of its own', async () => {
    const dir = tempDir();
    const activated = join(dir, 'act.sock');
    const runtime = join(dir, 'rt');
    const d = await startDaemon({
      launcher: ['python3', '-c', LAUNCHER, activated, 'self'],
      socket: activated,
      socketFlag: false,
      env: { XDG_RUNTIME_DIR: runtime },
    });
    const c = await connect(activated);
    const hello = await c.ok(DaemonHello, {});
    assert.equal(hello.pid, d.pid, 'the exec kept the pid the launcher announced');
    const added = await c.ok(MemoryAdd, { agentId: 'activated', content: 'served on an inherited socket' });
    assert.deepEqual((await c.ok(MemoryList, { agentId: 'activated' })).facts.map((f) => f.id), [added.factId]);
    assert.equal(existsSync(join(runtime, 'memoryd', 'memoryd.sock')), false, 'no socket of its own');
    c.socket.destroy();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
  });

  it('under systemd-socket-activate, without XDG_RUNTIME_DIR, reports, logs and locks the socket it serves', async () => {
    const dir = tempDir();
    const activated = join(dir, 'act.sock');
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    // Without XDG_RUNTIME_DIR the configured default is $TMPDIR/memoryd-<uid>/memoryd.sock: not the socket served.
    const d = await startDaemon({
      launcher: ['systemd-socket-activate', '-l', activated],
      socket: activated,
      socketFlag: false,
      env: { XDG_RUNTIME_DIR: undefined, TMPDIR: tmp },
    });
    const c = await connect(activated);
    const status = await c.ok(DaemonStatus, {});
    assert.equal(status.pid, d.pid);
    assert.equal(status.socket, activated, 'status names the inherited socket');
    assert.ok(existsSync(`${activated}.lock`), 'the lock is beside the socket served');
    assert.deepEqual(readdirSync(tmp), [], 'nothing made for the default socket');
    const listening = d.stderr().split('\n').find((l) => l.includes('"msg":"listening"'));
    assert.ok(listening !== undefined && JSON.parse(listening).socket === activated, `the log names it: ${listening}`);
    c.socket.destroy();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
  });

  it('ignores LISTEN_FDS meant for another process and binds its own socket', async () => {
    const dir = tempDir();
    const inherited = join(dir, 'act.sock');
    const own = join(dir, 'own.sock');
    const d = await startDaemon({ launcher: ['python3', '-c', LAUNCHER, inherited, 'other'], socket: own });
    const c = await connect(own);
    assert.equal((await c.ok(DaemonHello, {})).pid, d.pid);
    c.socket.destroy();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
  });
});
