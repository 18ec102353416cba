import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { cleanEnv, cleanupAll, daemonsUnder, MEMORYCTL_BIN, tempDir, trackPid, untrackPid, waitFor, withTimeout } from '@memoryd/test-support';
import { assertSuccess, overStdio } from './helpers/mcp.js';

// Issue 14: memoryd under real socket activation. systemd-socket-activate
// (Debian's systemd package) plays the user manager with the socket unit
// `memoryctl service install` writes: it listens on the unit's path and
// starts the unit's ExecStart on the first connection, passing the socket
// as LISTEN_FDS. The first client is served by the daemon it started, and
// the shim then uses that daemon without autostarting another.

after(cleanupAll);

const run = promisify(execFile);
const HAS_ACTIVATOR = spawnSync('sh', ['-c', 'command -v systemd-socket-activate']).status === 0;

/** A process's command line, NUL-separated arguments joined by spaces. */
function cmdline(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
}

describe('under systemd socket activation', { skip: HAS_ACTIVATOR ? false : 'systemd-socket-activate is not installed (.ci/run installs Debian\'s systemd)' }, () => {
  it('the first connection starts the unit\'s memoryd, which serves it; the shim then uses it and starts none', async () => {
    const root = realpathSync(tempDir());
    const home = join(root, 'home');
    const runtime = join(root, 'run');
    mkdirSync(home);
    mkdirSync(runtime, { mode: 0o700 });
    const env = cleanEnv({ HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined });

    // What the service would run: the unit's socket and ExecStart.
    const shown = await run(process.execPath, [MEMORYCTL_BIN, 'service', 'install', '--dry-run', '--json', '--target', 'systemd'], { env });
    const unit = JSON.parse(shown.stdout) as { socket: string; argv: string[]; dataDir: string };
    assert.equal(unit.socket, join(runtime, 'memoryd', 'memoryd.sock'), 'the socket unit listens on %t/memoryd/memoryd.sock');
    mkdirSync(join(runtime, 'memoryd'), { mode: 0o700 }); // the unit's DirectoryMode=0700

    const activator = spawn(
      'systemd-socket-activate',
      ['--listen', unit.socket, '--setenv', `HOME=${home}`, '--setenv', `XDG_RUNTIME_DIR=${runtime}`, '--', ...unit.argv],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const pid = activator.pid!;
    trackPid(pid);
    let log = '';
    activator.stderr.setEncoding('utf8').on('data', (t: string) => (log += t));
    const exited = new Promise<number | null>((resolve) => activator.once('exit', (code) => resolve(code)));
    await waitFor(() => log.includes('Listening on'), 10_000, `systemd-socket-activate to listen:\n${log}`);
    assert.match(cmdline(pid), /^systemd-socket-activate /, 'no memoryd runs before the first connection');
    assert.deepEqual(daemonsUnder(root).filter((p) => p !== pid), []);

    // The first connection: a client with autostart on, which must not need it.
    const first = await run(process.execPath, [MEMORYCTL_BIN, 'status', '--json'], { env });
    const status = JSON.parse(first.stdout) as { pid: number; dataDir: string; facts: number };
    assert.equal(status.pid, pid, 'the activated memoryd (exec keeps the pid) answered');
    assert.equal(status.dataDir, unit.dataDir);
    assert.equal(cmdline(pid), unit.argv.join(' '), 'it runs the unit\'s ExecStart');
    assert.match(log, /Communication attempt on fd 3/);

    // The shim, on the same default socket: served by that daemon, starts no other.
    const shim = await overStdio([], { HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined });
    try {
      assertSuccess(shim, 'memory_add', await shim.call('memory_add', { agent_id: 'activated', content: 'socket activation serves the shim' }));
      const found = assertSuccess(shim, 'memory_search', await shim.call('memory_search', { agent_id: 'activated', query: 'socket activation' }));
      assert.equal((found.structured['facts'] as unknown[]).length, 1);
    } finally {
      await shim.close();
    }
    const again = JSON.parse((await run(process.execPath, [MEMORYCTL_BIN, 'status', '--json'], { env })).stdout) as { pid: number; facts: number };
    assert.deepEqual([again.pid, again.facts], [pid, 1]);
    assert.deepEqual(daemonsUnder(root), [pid], 'exactly one memoryd ran');

    await run(process.execPath, [MEMORYCTL_BIN, 'stop'], { env });
    assert.equal(await withTimeout(exited, 10_000, 'the activated memoryd to exit'), 0);
    untrackPid(pid);
  });
});
