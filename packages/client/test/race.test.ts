import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { DaemonStatus } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, DAEMON_BIN, daemonsUnder, tempDir, trackPid, untrackPid, waitFor, withTimeout } from '@memoryd/test-support';

// docs/architecture.md "Connecting and autostart": clients that autostart
// at the same moment end with one daemon; the others exit and every client
// connects to the winner.

after(cleanupAll);

const CONNECT_ONCE = fileURLToPath(new URL('./helpers/connect-once.js', import.meta.url));
const START_TIMEOUT_MS = 15_000;

/** Everyone autostarts the real daemon on the same socket and data dir under `tmp`. */
function starterOptions(tmp: string) {
  return { socket: join(tmp, 'd.sock'), dataDir: join(tmp, 'data'), memorydBin: DAEMON_BIN, startTimeoutMs: START_TIMEOUT_MS };
}

/** What a connect-once process printed and how it ended. */
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs helpers/connect-once.js with `options`, bounded, killed by pid on overrun. */
function connectOnce(options: object): Promise<Outcome> {
  const child = spawn(process.execPath, [CONNECT_ONCE, JSON.stringify(options)], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  trackPid(pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Outcome>((resolve) =>
    child.once('close', (code) => {
      untrackPid(pid);
      resolve({ code, stdout, stderr });
    }),
  );
  return withTimeout(done, START_TIMEOUT_MS + 10_000, `connect-once ${pid}`);
}

describe('two starters at once', () => {
  it('two clients in one process autostarting together end with one daemon serving both', async () => {
    const tmp = tempDir();
    const options = { ...starterOptions(tmp), env: cleanEnv() };
    const a = new DaemonClient(options);
    const b = new DaemonClient(options);
    try {
      const [ha, hb] = await withTimeout(Promise.all([a.connect(), b.connect()]), START_TIMEOUT_MS + 5_000, 'both connects');
      trackPid(ha.pid);
      trackPid(hb.pid);
      assert.equal(ha.pid, hb.pid);
      // The other spawned daemon lost the lock and exits on its own.
      await waitFor(() => daemonsUnder(tmp).length === 1, 10_000, 'a single daemon');
      assert.deepEqual(daemonsUnder(tmp), [ha.pid]);
      assert.equal((await a.call(DaemonStatus, {})).connections, 2);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('two client processes autostarting together both connect to the same daemon', async () => {
    const tmp = tempDir();
    const options = starterOptions(tmp); // each process uses its own process.env
    const outcomes = await Promise.all([connectOnce(options), connectOnce(options)]);
    const pids: number[] = [];
    for (const o of outcomes) {
      assert.equal(o.code, 0, o.stderr);
      // The library wrote nothing else to stdout: exactly the script's one line.
      assert.match(o.stdout, /^\{"pid":\d+\}\n$/);
      const { pid } = JSON.parse(o.stdout) as { pid: number };
      trackPid(pid);
      pids.push(pid);
    }
    assert.equal(pids[0], pids[1]);
    await waitFor(() => daemonsUnder(tmp).length === 1, 10_000, 'a single daemon');
    assert.deepEqual(daemonsUnder(tmp), [pids[0]]);
  });

  it('many clients at once (8) still end with one daemon', async () => {
    const tmp = tempDir();
    const options = { ...starterOptions(tmp), env: cleanEnv() };
    const clients = Array.from({ length: 8 }, () => new DaemonClient(options));
    try {
      const hellos = await withTimeout(Promise.all(clients.map((c) => c.connect())), START_TIMEOUT_MS + 5_000, 'all connects');
      for (const h of hellos) trackPid(h.pid);
      assert.equal(new Set(hellos.map((h) => h.pid)).size, 1);
      await waitFor(() => daemonsUnder(tmp).length === 1, 10_000, 'a single daemon');
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
