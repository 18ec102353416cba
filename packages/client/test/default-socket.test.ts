import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { defaultSocketPath, socketDirProblem } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, DAEMON_BIN, daemonsUnder, tempDir, trackPid, withTimeout } from '@memoryd/test-support';
import { fakeMemoryd } from './helpers/fake-memoryd.js';

after(cleanupAll);

const uid = process.getuid?.() ?? 0;

/** The one-line reason protocol gives for `dir`, judged as both daemon and client judge it. */
function reasonFor(dir: string): string | undefined {
  const st = lstatSync(dir);
  return socketDirProblem(dir, { isDirectory: st.isDirectory(), isSymbolicLink: st.isSymbolicLink(), uid: st.uid, mode: st.mode }, uid);
}

/** Connect with the default socket under XDG_RUNTIME_DIR=`runtime`; expect the refusal. */
async function expectRefusal(runtime: string, dir: string): Promise<void> {
  const fake = fakeMemoryd(runtime, 'exit');
  const env = cleanEnv({ XDG_RUNTIME_DIR: runtime, MEMORYD_BIN: fake.bin });
  const client = new DaemonClient({ env, startTimeoutMs: 10_000 });
  const socket = join(dir, 'memoryd.sock');
  assert.equal(client.socketPath, socket);
  assert.equal(client.socketPath, defaultSocketPath({ XDG_RUNTIME_DIR: runtime }, uid));
  const mode = lstatSync(dir).mode;
  const reason = reasonFor(dir);
  assert.ok(reason !== undefined, 'the set-up is unsafe');
  const started = Date.now();
  const err = await withTimeout(client.connect(), 5_000, 'connect').then(
    () => assert.fail('connected despite an unsafe socket dir'),
    (e: unknown) => e,
  );
  assert.ok(isClientError(err, ClientErrorCodes.Unavailable));
  assert.equal(err.message, `memory daemon unavailable at ${socket}: ${reason}`);
  assert.equal((err.cause as Error).message, reason);
  assert.ok(Date.now() - started < 5_000, 'refused at once, no autostart wait');
  assert.equal(lstatSync(dir).mode, mode, 'the directory is left as it was');
  assert.equal(fake.runs().length, 0, 'nothing was started');
  assert.deepEqual(daemonsUnder(runtime), []);
  await client.close();
}

/**
 * Connects with the default socket under XDG_RUNTIME_DIR=`runtime`,
 * autostarting the real daemon (tracked by pid for cleanup), runs `check`,
 * then closes the client.
 */
async function autostartUnder(runtime: string, check: (client: DaemonClient) => void): Promise<void> {
  const client = new DaemonClient({
    dataDir: join(runtime, 'data'),
    memorydBin: DAEMON_BIN,
    env: cleanEnv({ XDG_RUNTIME_DIR: runtime }),
    startTimeoutMs: 15_000,
  });
  try {
    const hello = await withTimeout(client.connect(), 20_000, 'connect with autostart');
    trackPid(hello.pid);
    check(client);
  } finally {
    await client.close();
  }
}

describe('the default socket directory', () => {
  it('refuses one that admits group or others (0755): Unavailable with the reason, mode unchanged, no daemon', async () => {
    const runtime = tempDir();
    const dir = join(runtime, 'memoryd');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await expectRefusal(runtime, dir);
    assert.equal(statSync(dir).mode & 0o777, 0o755);
  });

  it('refuses a symbolic link, even to a safe directory', async () => {
    const runtime = tempDir();
    const real = join(runtime, 'real');
    mkdirSync(real, { mode: 0o700 });
    chmodSync(real, 0o700);
    symlinkSync(real, join(runtime, 'memoryd'));
    await expectRefusal(runtime, join(runtime, 'memoryd'));
  });

  it('when missing, autostart lets the daemon create it 0700 and connects', async () => {
    const runtime = tempDir();
    await autostartUnder(runtime, (client) => {
      assert.equal(client.socketPath, join(runtime, 'memoryd', 'memoryd.sock'));
      assert.equal(statSync(join(runtime, 'memoryd')).mode & 0o777, 0o700);
      assert.equal(reasonFor(join(runtime, 'memoryd')), undefined);
    });
  });

  it('an existing 0700 directory of ours is used', async () => {
    const runtime = tempDir();
    const dir = join(runtime, 'memoryd');
    mkdirSync(dir);
    chmodSync(dir, 0o700);
    await autostartUnder(runtime, () => {
      assert.equal(statSync(dir).mode & 0o777, 0o700);
    });
  });
});
