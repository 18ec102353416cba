// --busy-poll-us (ADR 0012): after each answer the daemon polls for the
// next request instead of sleeping, for at most the window, and then
// sleeps: an idle daemon spends no CPU. Read from the daemon's CPU time
// in /proc, so Linux only.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DaemonHello } from '@memoryd/protocol';
import { cleanupAll, startDaemon } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';
import { assertUsageError, itRefusesAsUsage } from './helpers/usage-errors.js';

after(cleanupAll);

const linuxOnly = { skip: process.platform === 'linux' ? false : 'reads CPU time from /proc (Linux only)' };

/** User plus system CPU time the process has used, in ms. */
function cpuMs(pid: number): number {
  // "pid (comm) S ...": comm may hold spaces or parens, so the fields
  // start after its last ')'. Of those, utime is the 12th and stime the
  // 13th, in clock ticks (USER_HZ, 100 on Linux).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time the process uses during the next `ms` of wall time. */
async function cpuDuring(pid: number, ms: number): Promise<number> {
  const before = cpuMs(pid);
  await sleep(ms);
  return cpuMs(pid) - before;
}

describe('busy polling after an answer', () => {
  it('polls for the window after an answer, then sleeps', linuxOnly, async () => {
    // A window long enough to see in CPU time: 800 ms.
    const d = await startDaemon({ args: ['--busy-poll-us', '800000'] });
    const c = await connect(d.socket);
    await sleep(300);
    const idleBefore = await cpuDuring(d.pid, 500);
    await c.ok(DaemonHello, {});
    const polling = await cpuDuring(d.pid, 600);
    await sleep(500);
    const idleAfter = await cpuDuring(d.pid, 500);
    // Polling keeps a core busy; sleeping uses next to none. The bounds
    // are far apart so that a loaded machine cannot blur them.
    assert.ok(polling >= 150, `${polling} ms of CPU in the 600 ms after an answer`);
    assert.ok(idleBefore <= 100, `${idleBefore} ms of CPU in 500 ms before any request`);
    assert.ok(idleAfter <= 100, `${idleAfter} ms of CPU in 500 ms once the window ended`);
    c.socket.destroy();
    await d.stop();
  });

  it('never polls with --busy-poll-us 0, and answers as before', linuxOnly, async () => {
    const d = await startDaemon({ args: ['--busy-poll-us', '0'] });
    const c = await connect(d.socket);
    for (let i = 0; i < 20; i++) assert.equal(typeof (await c.ok(DaemonHello, {})).pid, 'number');
    const idle = await cpuDuring(d.pid, 500);
    assert.ok(idle <= 100, `${idle} ms of CPU in 500 ms after the last answer`);
    c.socket.destroy();
    await d.stop();
  });

  it('with the default window, a daemon answering back-to-back requests goes idle after the last one', linuxOnly, async () => {
    const d = await startDaemon();
    const c = await connect(d.socket);
    for (let i = 0; i < 500; i++) await c.ok(DaemonHello, {});
    await sleep(100);
    const idle = await cpuDuring(d.pid, 500);
    assert.ok(idle <= 100, `${idle} ms of CPU in 500 ms after the last answer`);
    c.socket.destroy();
    await d.stop();
  });
});

describe('--busy-poll-us', () => {
  const bad: Array<[string, string[], RegExp]> = [
    ['not a number', ['--busy-poll-us', 'fast'], /--busy-poll-us must be a whole number/],
    ['negative', ['--busy-poll-us', '-5'], /--busy-poll-us/],
    ['over a second', ['--busy-poll-us', '1000001'], /--busy-poll-us must be at most 1000000/],
  ];
  itRefusesAsUsage(bad);

  it('is read from MEMORYD_BUSY_POLL_US when the flag is absent', () => assertUsageError({ env: { MEMORYD_BUSY_POLL_US: 'soon' } }, /--busy-poll-us must be a whole number, got "soon"/));
});
