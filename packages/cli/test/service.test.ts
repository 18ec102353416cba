import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanupAll, DAEMON_BIN, startDaemon, tempDir } from '@memoryd/test-support';
import { fakeManagers } from './helpers/fake-managers.js';
import { memoryctl } from './helpers/memoryctl.js';

// `memoryctl service` against fake systemctl and launchctl (no service
// manager runs in a test), with the files they are given checked by the
// real tools: systemd-analyze verify for the units, Python's plistlib for
// the plist. tarball.test.ts does the same from an installed release.

after(cleanupAll);

const uid = process.getuid?.() ?? 0;
const MEMORYD = realpathSync(DAEMON_BIN);
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** A HOME, a runtime dir and fake managers: a user's machine in a temp dir. */
function machine() {
  const root = realpathSync(tempDir());
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  mkdirSync(join(root, 'fake'));
  const fake = fakeManagers(join(root, 'fake'));
  const env = { ...fake.env, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined, FAKE_FAIL: undefined };
  return { root, home, runtime, fake, env };
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

/** systemd's own check of unit files, as the user manager would load them; its warnings count as failures. */
function verifyUnits(runtime: string, units: string[]): void {
  const run = spawnSync('systemd-analyze', ['--user', 'verify', ...units], { env: { ...process.env, XDG_RUNTIME_DIR: runtime }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr.trim(), '', 'systemd-analyze warned');
}

/** The plist as Python's plistlib reads it. */
function parsePlist(path: string): Record<string, unknown> {
  const text = execFileSync('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', path], { encoding: 'utf8' });
  return JSON.parse(text) as Record<string, unknown>;
}

describe('memoryctl service (systemd)', () => {
  it('--dry-run prints both units and every step, and changes nothing', async () => {
    const m = machine();
    const run = await memoryctl(['service', 'install', '--dry-run', '--target', 'systemd'], { env: m.env });
    assert.equal(run.code, 0, run.stderr);
    const dir = join(m.home, '.config', 'systemd', 'user');
    assert.match(run.stdout, new RegExp(`^# ${dir}/memoryd.service$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ExecStart=${process.execPath} ${MEMORYD} --data-dir ${m.home}/.local/share/memoryd$`, 'm'));
    for (const line of ['ListenStream=%t/memoryd/memoryd.sock', 'SocketMode=0600', 'DirectoryMode=0700', 'Restart=on-failure', 'WantedBy=sockets.target']) {
      assert.match(run.stdout, new RegExp(`^${line}$`, 'm'));
    }
    for (const step of ['systemctl --user daemon-reload', 'systemctl --user enable --now memoryd.socket']) assert.match(run.stdout, new RegExp(`^${step}$`, 'm'));
    assert.deepEqual(filesUnder(m.home), []);
    assert.deepEqual(m.fake.calls(), []);
  });

  it('install writes what --dry-run showed, systemd accepts it, a daemon outside the service stops; uninstall reverses it', async () => {
    const m = machine();
    const shown = await memoryctl(['service', 'install', '--dry-run', '--json', '--target', 'systemd'], { env: m.env });
    const plan = JSON.parse(shown.stdout) as { files: Array<{ path: string; content: string }>; socket: string };
    assert.equal(plan.socket, join(m.runtime, 'memoryd', 'memoryd.sock'));
    const outside = await startDaemon({ socket: plan.socket, socketFlag: false, env: { XDG_RUNTIME_DIR: m.runtime } });

    const run = await memoryctl(['service', 'install', '--target', 'systemd'], { env: m.env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`stopped the daemon running outside the service \\(pid ${outside.pid}\\)`));
    assert.deepEqual(await outside.exited, { code: 0, signal: null }, 'the daemon outside the service stopped gracefully');
    for (const f of plan.files) assert.equal(readFileSync(f.path, 'utf8'), f.content);
    assert.deepEqual(m.fake.calls(), [
      'systemctl --user daemon-reload',
      'systemctl --user is-active --quiet memoryd.socket',
      'systemctl --user enable --now memoryd.socket',
      'systemctl --user try-restart memoryd.service',
    ]);
    if (has('systemd-analyze')) verifyUnits(m.runtime, plan.files.map((f) => f.path));

    const status = await memoryctl(['service', 'status', '--target', 'systemd'], { env: m.env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /memoryd\.service: installed$/m);
    assert.match(status.stdout, /memoryd\.socket enabled, inactive; memoryd\.service inactive/);
    assert.match(status.stdout, /^daemon: +no daemon answers$/m);

    const gone = await memoryctl(['service', 'uninstall', '--target', 'systemd'], { env: m.env });
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(filesUnder(m.home), [], 'every file install wrote is gone');
    assert.deepEqual(m.fake.calls().slice(-3), [
      'systemctl --user disable --now memoryd.socket',
      'systemctl --user stop memoryd.service',
      'systemctl --user daemon-reload',
    ]);
    const after = await memoryctl(['service', 'status', '--json', '--target', 'systemd'], { env: m.env });
    assert.equal(after.code, 4);
    assert.equal((JSON.parse(after.stdout) as { installed: boolean }).installed, false);
  });

  it('a failed install puts the files back as they were and says which step failed', async () => {
    const m = machine();
    const dir = join(m.home, '.config', 'systemd', 'user');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'memoryd.service'), '# the user\'s own, from before\n');
    const run = await memoryctl(['service', 'install', '--target', 'systemd'], { env: { ...m.env, FAKE_FAIL: 'enable' } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /systemctl --user enable --now memoryd\.socket failed \(exit 1\): Failed to enable: refused by the test/);
    assert.equal(readFileSync(join(dir, 'memoryd.service'), 'utf8'), '# the user\'s own, from before\n');
    assert.equal(existsSync(join(dir, 'memoryd.socket')), false);
  });

  it('out-of-date units (another node or memoryd since) show in status', async () => {
    const m = machine();
    assert.equal((await memoryctl(['service', 'install', '--target', 'systemd'], { env: m.env })).code, 0);
    const unit = join(m.home, '.config', 'systemd', 'user', 'memoryd.service');
    writeFileSync(unit, readFileSync(unit, 'utf8').replace(process.execPath, '/opt/old/node'));
    const status = await memoryctl(['service', 'status', '--target', 'systemd'], { env: m.env });
    assert.equal(status.code, 0);
    assert.match(status.stdout, /memoryd\.service: installed, out of date \(run memoryctl service install again\)/);
  });

  it('--data-dir and --socket go into the units', async () => {
    const m = machine();
    const socket = join(m.root, 'chosen.sock');
    const run = await memoryctl(['--socket', socket, '--data-dir', join(m.root, 'data'), 'service', 'install', '--dry-run', '--target', 'systemd'], { env: m.env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^ExecStart=${process.execPath} ${MEMORYD} --data-dir ${m.root}/data --socket ${socket}$`, 'm'));
    assert.match(run.stdout, new RegExp(`^ListenStream=${socket}$`, 'm'));
  });
});

describe('memoryctl service (launchd)', () => {
  it('install writes a plist launchd can read, bootstraps it, and uninstall boots it out and removes it', async () => {
    const m = machine();
    const socket = join(m.runtime, 'memoryd', 'memoryd.sock');
    const run = await memoryctl(['service', 'install', '--target', 'launchd'], { env: m.env });
    assert.equal(run.code, 0, run.stderr);
    const plist = join(m.home, 'Library', 'LaunchAgents', 'dev.memoryd.plist');
    const parsed = parsePlist(plist);
    assert.deepEqual(parsed['ProgramArguments'], [process.execPath, MEMORYD, '--socket', socket, '--data-dir', join(m.home, 'Library', 'Application Support', 'memoryd')]);
    assert.equal(parsed['Label'], 'dev.memoryd');
    assert.equal(parsed['RunAtLoad'], true);
    assert.deepEqual(parsed['KeepAlive'], { SuccessfulExit: false });
    assert.equal(parsed['StandardErrorPath'], join(m.home, 'Library', 'Logs', 'memoryd', 'memoryd.log'));
    assert.equal(statSync(join(m.home, 'Library', 'Logs', 'memoryd')).mode & 0o777, 0o700);
    assert.deepEqual(m.fake.calls(), [`launchctl bootout gui/${uid}/dev.memoryd`, `launchctl bootstrap gui/${uid} ${plist}`]);
    assert.match(run.stderr, /note: launchctl bootout .* failed \(exit 3\)/, 'nothing to boot out is only a note');

    const status = await memoryctl(['service', 'status', '--target', 'launchd'], { env: m.env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^launchd: +loaded, not running$/m);

    const gone = await memoryctl(['service', 'uninstall', '--target', 'launchd'], { env: m.env });
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal(existsSync(plist), false);
    assert.deepEqual(m.fake.calls().slice(-1), [`launchctl bootout gui/${uid}/dev.memoryd`]);
    assert.deepEqual(filesUnder(m.home), [], 'only directories stay (the log directory among them)');
  });
});

describe('memoryctl service usage', () => {
  it('refuses what it cannot do with exit 2 and one line', async () => {
    const m = machine();
    for (const args of [['service'], ['service', 'restart'], ['service', 'install', '--target', 'upstart'], ['service', 'status', '--dry-run'], ['service', 'install', 'extra']]) {
      const run = await memoryctl(args, { env: m.env });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^memoryctl service: .+ \(see memoryctl service --help\)\n$/);
    }
    const help = await memoryctl(['service', '--help'], { env: m.env });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: memoryctl service install\|uninstall\|status/);
    assert.deepEqual(filesUnder(m.home), []);
  });
});
