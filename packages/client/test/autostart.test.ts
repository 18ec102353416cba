import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { DaemonStatus, MemoryAdd, MemorySearch } from '@memoryd/protocol';
import { canConnect, cleanEnv, cleanupAll, DAEMON_BIN, isAlive, processes, tempDir, trackPid, waitFor, withTimeout } from '@memoryd/test-support';
import { type FakeMemoryd, fakeMemoryd } from './helpers/fake-memoryd.js';

after(cleanupAll);

/** Generous: many daemons may start at once on a loaded machine; the bound itself is tested below. */
const START_TIMEOUT_MS = 15_000;
/**
 * A start bound that a start failure must not wait out: the tests that it is
 * told at once guard the connect with half of it, so "at once" is told from
 * "after the bound" without timing anything.
 */
const LONG_START_TIMEOUT_MS = 60_000;

/** Connects `client` (bounded) and registers the daemon it reached for cleanup, by pid. */
async function connectTracked(client: DaemonClient) {
  const hello = await withTimeout(client.connect(), START_TIMEOUT_MS + 5_000, 'connect with autostart');
  trackPid(hello.pid);
  return hello;
}

/**
 * Connects (autostarting `fake`), waits until it ran `n` times, optionally
 * `settleMs` more (to see that no further run follows), then closes: the
 * connect ends with ConnectionLost. Leaves timing out of the assertions.
 */
async function spawnsThenClose(client: DaemonClient, fake: FakeMemoryd, n: number, settleMs = 0): Promise<void> {
  const outcome = withTimeout(client.connect(), 60_000, 'connect').then(
    () => assert.fail('connected to nothing'),
    (e: unknown) => e,
  );
  await waitFor(() => fake.runs().length >= n, 20_000, `${n} runs of the fake daemon`);
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  await withTimeout(client.close(), 5_000, 'close');
  assert.ok(isClientError(await outcome, ClientErrorCodes.ConnectionLost));
}

describe('autostart', () => {
  it('starts memoryd detached with the socket and data dir, connects, and leaves it running on close()', async () => {
    const tmp = tempDir();
    const socket = join(tmp, 'd.sock');
    const dataDir = join(tmp, 'data');
    const client = new DaemonClient({ socket, dataDir, memorydBin: DAEMON_BIN, env: cleanEnv(), startTimeoutMs: START_TIMEOUT_MS });
    const hello = await connectTracked(client);
    try {
      assert.notEqual(hello.pid, process.pid);
      const proc = processes().find((p) => p.pid === hello.pid);
      assert.ok(proc, 'the daemon process exists');
      assert.equal(proc.sid, hello.pid, 'detached: it leads its own session');
      assert.ok(proc.args.includes(DAEMON_BIN));
      const status = await client.call(DaemonStatus, {});
      assert.equal(status.dataDir, dataDir);
      assert.equal(status.socket, socket);
      assert.ok(existsSync(join(dataDir, 'store')), 'LevelDB lives in <data-dir>/store');
      await client.call(MemoryAdd, { agentId: 'auto', content: 'autostarted daemons keep data' });
    } finally {
      await client.close();
    }
    assert.ok(isAlive(hello.pid), 'close() leaves the shared daemon running');
    assert.ok(await canConnect(socket));
    const other = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
    try {
      assert.equal((await withTimeout(other.connect(), 10_000, 'connect')).pid, hello.pid);
      const found = await other.call(MemorySearch, { agentId: 'auto', query: 'autostarted' });
      assert.equal(found.facts.length, 1);
    } finally {
      await other.close();
    }
  });

  it('finds memoryd without memorydBin: node_modules/.bin/memoryd walking up, symlink resolved', async () => {
    const tmp = tempDir();
    const client = new DaemonClient({ socket: join(tmp, 'd.sock'), dataDir: join(tmp, 'data'), env: cleanEnv(), startTimeoutMs: START_TIMEOUT_MS });
    try {
      const hello = await connectTracked(client);
      const proc = processes().find((p) => p.pid === hello.pid);
      assert.ok(proc, 'the daemon process exists');
      assert.ok(proc.args.includes(DAEMON_BIN), `runs the real file: ${proc.args}`);
      assert.ok(proc.args.startsWith(process.execPath), 'with this Node');
    } finally {
      await client.close();
    }
  });

  it('MEMORYD_BIN and MEMORYD_DATA_DIR from env are used', async () => {
    const tmp = tempDir();
    const dataDir = join(tmp, 'envdata');
    const env = cleanEnv({ MEMORYD_BIN: DAEMON_BIN, MEMORYD_DATA_DIR: dataDir });
    const client = new DaemonClient({ socket: join(tmp, 'd.sock'), env, startTimeoutMs: START_TIMEOUT_MS });
    try {
      await connectTracked(client);
      assert.equal((await client.call(DaemonStatus, {})).dataDir, dataDir);
    } finally {
      await client.close();
    }
  });

  it('passes --socket and --data-dir as absolute paths and runs the daemon in /', async () => {
    const tmp = tempDir();
    const fake = fakeMemoryd(tmp, 'hang');
    const socket = join(tmp, 'd.sock');
    const dataDir = join(tmp, 'data');
    // Relative to our cwd: the daemon, running in /, must get them resolved.
    const client = new DaemonClient({
      socket: relative(process.cwd(), socket),
      dataDir: relative(process.cwd(), dataDir),
      memorydBin: fake.bin,
      env: cleanEnv(),
      startTimeoutMs: 60_000,
    });
    await spawnsThenClose(client, fake, 1);
    assert.deepEqual(fake.runs(), [{ argv: ['--socket', socket, '--data-dir', dataDir], cwd: '/' }]);
  });

  it('without dataDir no --data-dir is passed (the daemon uses its default)', async () => {
    const tmp = tempDir();
    const fake = fakeMemoryd(tmp, 'hang');
    const socket = join(tmp, 'd.sock');
    const client = new DaemonClient({ socket, memorydBin: fake.bin, env: cleanEnv(), startTimeoutMs: 60_000 });
    await spawnsThenClose(client, fake, 1);
    assert.deepEqual(fake.runs()[0]?.argv, ['--socket', socket]);
  });

  it('a spawned daemon that exits without answering is replaced, at most 3 times per connect', async () => {
    const tmp = tempDir();
    const fake = fakeMemoryd(tmp, 'exit');
    const client = new DaemonClient({ socket: join(tmp, 'd.sock'), memorydBin: fake.bin, env: cleanEnv(), startTimeoutMs: 60_000 });
    await spawnsThenClose(client, fake, 3, 1_000);
    assert.equal(fake.runs().length, 3);
  });

  it('no daemon answering within startTimeoutMs: Unavailable, after the whole bound', async () => {
    const tmp = tempDir();
    const fake = fakeMemoryd(tmp, 'hang');
    const socket = join(tmp, 'd.sock');
    const client = new DaemonClient({ socket, memorydBin: fake.bin, env: cleanEnv(), startTimeoutMs: 1_000 });
    const started = Date.now();
    const err = await withTimeout(client.connect(), 10_000, 'connect').then(
      () => assert.fail('connected to nothing'),
      (e: unknown) => e,
    );
    const elapsed = Date.now() - started;
    assert.ok(isClientError(err, ClientErrorCodes.Unavailable));
    assert.ok(err.message.startsWith(`memory daemon unavailable at ${socket}: `), err.message);
    assert.ok(elapsed >= 1_000, `waited the whole bound (${elapsed} ms)`);
    // The one it started still runs (it never exited), so it was not replaced.
    await waitFor(() => fake.runs().length === 1, 10_000, 'the fake daemon to record its run');
    assert.equal(fake.runs().length, 1);
    await client.close();
  });

  it('autostart: false never spawns', async () => {
    const tmp = tempDir();
    const fake = fakeMemoryd(tmp, 'exit');
    const client = new DaemonClient({ socket: join(tmp, 'd.sock'), memorydBin: fake.bin, autostart: false, env: cleanEnv() });
    await assert.rejects(withTimeout(client.connect(), 5_000, 'connect'), (e: unknown) => isClientError(e, ClientErrorCodes.Unavailable));
    assert.equal(fake.runs().length, 0);
    await client.close();
  });
});

describe('autostart tells why a start failed', () => {
  it('a data dir that cannot be made: the daemon\'s own reason, at once, and in the autostart log', async () => {
    const tmp = tempDir();
    const file = join(tmp, 'file');
    writeFileSync(file, 'not a directory');
    const env = cleanEnv();
    // "At once": long before the start bound. A client that waited the bound out would be
    // stopped by the guard (half of it), or say `no daemon answered within` instead.
    const client = new DaemonClient({ socket: join(tmp, 'd.sock'), dataDir: join(file, 'data'), memorydBin: DAEMON_BIN, env, startTimeoutMs: LONG_START_TIMEOUT_MS });
    const err = await withTimeout(client.connect(), LONG_START_TIMEOUT_MS / 2, 'the failed autostart').then(
      () => assert.fail('connected'),
      (e: unknown) => e,
    );
    assert.ok(isClientError(err, ClientErrorCodes.Unavailable), String(err));
    assert.match(err.message, new RegExp(`^memory daemon unavailable at .*d\\.sock: memoryd could not start: cannot create data dir .*: ENOTDIR: not a directory, mkdir '`));
    assert.doesNotMatch(err.message, /no daemon answered within/, 'told why the daemon exited, not after the start bound');
    const log = readFileSync(join(env['XDG_STATE_HOME']!, 'memoryd', 'memoryd.log'), 'utf8');
    assert.match(log, /memoryd: cannot start: cannot create data dir .*ENOTDIR/);
    await client.close();
  });
});

describe('autostart into a data dir the user may not write', () => {
  it('EACCES, named at once, not after the start bound (run as nobody: root may write anywhere)', async (t) => {
    const nobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];
    const clientJs = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    if (process.getuid?.() !== 0) return t.skip('needs root, to run the client as nobody');
    const readable = spawnSync('setpriv', [...nobody, process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(clientJs)}); require('fs').accessSync(${JSON.stringify(DAEMON_BIN)})`]);
    if (readable.error !== undefined || readable.status !== 0) return t.skip('setpriv missing, or nobody cannot read this checkout');
    const tmp = tempDir();
    chmodSync(tmp, 0o755);
    const locked = join(tmp, 'locked');
    const mine = join(tmp, 'mine');
    mkdirSync(locked, { mode: 0o700 });
    mkdirSync(mine, { mode: 0o700 });
    chownSync(mine, 65534, 65534);
    const script = `
      import { DaemonClient } from ${JSON.stringify(clientJs)};
      const client = new DaemonClient({ socket: ${JSON.stringify(join(mine, 'd.sock'))}, dataDir: ${JSON.stringify(join(locked, 'data'))},
        memorydBin: ${JSON.stringify(DAEMON_BIN)}, startTimeoutMs: ${LONG_START_TIMEOUT_MS},
        env: { ...process.env, HOME: ${JSON.stringify(mine)}, XDG_STATE_HOME: ${JSON.stringify(join(mine, 'state'))} } });
      try { await client.connect(); console.log(JSON.stringify({ connected: true })); }
      catch (err) { console.log(JSON.stringify({ message: err.message })); }
      await client.close();`;
    // Killed at half the start bound: a client that waited it out prints nothing.
    const run = spawnSync('setpriv', [...nobody, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: LONG_START_TIMEOUT_MS / 2 });
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) || '{}') as { message?: string };
    assert.match(out.message ?? run.stderr, /: memoryd could not start: cannot create data dir .*: EACCES: permission denied, mkdir '/);
    assert.doesNotMatch(out.message ?? '', /no daemon answered within/, 'named why the daemon exited, not after the start bound');
  });
});
