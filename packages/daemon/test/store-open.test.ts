import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DaemonErrorCodes, openStore, silentLogger } from '@memoryd/daemon';
import { tempDir, trackPid, untrackPid } from '@memoryd/test-support';
import { openTempStore, rejectsWith, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

test('creates the data dir 0700 with LevelDB in <dataDir>/store', async () => {
  const dataDir = join(tempDir('mds-'), 'nested', 'data');
  const { store } = await openTempStore({ dataDir });
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  assert.ok(statSync(join(dataDir, 'store', 'CURRENT')).isFile());
  await store.close();
});

test('a data dir held by another process is DataDirLocked, with level’s codes as causes', async () => {
  const dataDir = tempDir('mds-');
  // The child opens the store, says so, and holds it until its stdin ends.
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { openStore, silentLogger } from '@memoryd/daemon';
       const store = await openStore({ dataDir: ${JSON.stringify(dataDir)}, sync: true, logger: silentLogger });
       process.stdout.write('ready\\n');
       process.stdin.resume();
       process.stdin.on('end', () => store.close().then(() => process.exit(0)));`,
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  trackPid(child.pid!);
  try {
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('ready') ? resolve() : undefined));
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    await Promise.race([ready, new Promise((_, reject) => setTimeout(() => reject(new Error('child not ready in 10 s')), 10_000).unref())]);

    const err = await rejectsWith(openStore({ dataDir, sync: true, logger: silentLogger }), DaemonErrorCodes.DataDirLocked);
    const cause = err.cause as { code?: string; cause?: { code?: string } };
    assert.equal(cause.code, 'LEVEL_DATABASE_NOT_OPEN');
    assert.equal(cause.cause?.code, 'LEVEL_LOCKED');
  } finally {
    const exited = once(child, 'exit');
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    untrackPid(child.pid!);
  }
  // Once the holder is gone the data dir opens.
  const { store } = await openTempStore({ dataDir });
  await store.close();
});

test('any other open failure is a storage error with its cause', async () => {
  const file = join(tempDir('mds-'), 'not-a-dir');
  writeFileSync(file, 'x');
  const err = await rejectsWith(openStore({ dataDir: file, sync: true, logger: silentLogger }), DaemonErrorCodes.Storage);
  assert.ok(err.cause instanceof Error);
});
