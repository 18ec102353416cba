// Issue 13: `npm start` stops cleanly on SIGTERM (the start script execs
// the daemon, so npm's forwarded signal reaches it, not a shell), and in a
// terminal SIGHUP is a graceful stop too (a closing terminal sends it).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { type TestContext, after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { canConnect, cleanEnv, cleanupAll, DAEMON_BIN, daemonPaths, pidsMentioning, processes, trackPid, untrackPid, waitFor } from '@memoryd/test-support';

after(cleanupAll);

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** Starts `command` (tracked by pid), with its output gathered; resolves once `socket` accepts. */
async function started(command: string, args: string[], socket: string, env: Record<string, string | undefined> = {}): Promise<{ pid: number; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(command, args, { cwd: REPO, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid!);
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (output += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (output += t));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => {
    untrackPid(child.pid!);
    resolve(code);
  }));
  await waitFor(() => canConnect(socket), 20_000, `${command} to serve ${socket}`);
  return { pid: child.pid!, output: () => output, exited };
}

/** The pid of the node process running memoryd on `socket` (not npm, sh or script around it). */
function daemonPid(socket: string): number {
  const [pid] = processes()
    .filter((p) => p.args.startsWith(process.execPath) || p.args.startsWith('node '))
    .filter((p) => p.args.includes('memoryd.js') && p.args.includes(socket))
    .map((p) => p.pid);
  assert.ok(pid !== undefined, `a daemon on ${socket}`);
  return pid;
}

describe('signals', () => {
  it('SIGTERM to `npm start` stops the daemon cleanly: socket removed, no orphan', async () => {
    const { socket, dataDir } = daemonPaths();
    const npm = await started('npm', ['start', '--', '--socket', socket, '--data-dir', dataDir, '--log-level', 'info'], socket, { GLIBC_TUNABLES: undefined });
    // Plain node: no runtime flags, no glibc tunable (ADR 0029).
    const pid = daemonPid(socket);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.deepEqual(environ.filter((v) => v.startsWith('GLIBC_TUNABLES=')), [], "the daemon's environment");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(!cmdline.some((a) => a.startsWith('--v8-')), `the daemon's command line: ${cmdline.join(' ')}`);
    process.kill(npm.pid, 'SIGTERM');
    await waitFor(() => pidsMentioning('memoryd.js', socket).length === 0, 10_000, 'no process left on the socket');
    await npm.exited;
    assert.equal(existsSync(socket), false, 'the socket is removed');
    assert.match(npm.output(), /"msg":"stopped","reason":"SIGTERM"/);
  });

  it('SIGHUP in a terminal is a graceful stop', async (t: TestContext) => {
    if (spawnSync('script', ['--version']).error !== undefined) return t.skip('no `script` to give the daemon a terminal');
    const { socket, dataDir } = daemonPaths();
    const line = [process.execPath, DAEMON_BIN, '--socket', socket, '--data-dir', dataDir, '--log-level', 'info'].join(' ');
    const script = await started('script', ['-qfc', line, '/dev/null'], socket);
    process.kill(daemonPid(socket), 'SIGHUP');
    await waitFor(() => pidsMentioning('memoryd.js', socket).length === 0, 10_000, 'the daemon to stop');
    await script.exited;
    assert.equal(existsSync(socket), false, 'the socket is removed');
    assert.match(script.output(), /"msg":"stopped","reason":"SIGHUP"/);
  });
});
