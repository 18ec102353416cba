// Nothing memoryd ships spins while it waits (issue 29, ADR 0029): a
// daemon and a memoryd-mcp shim that have served a search and a write,
// then are left alone, burn no CPU. Read from each process's own CPU time
// (/proc/PID/stat, utime + stime, Linux) over a window of a few seconds:
// idle, each uses a clock tick or two (a garbage collection after the
// answers); the bound, 1% of the window, is a tenth of what a poll of
// 100 µs per millisecond would use and a hundredth of a spinning process.
// CPU time, not wall time: a loaded machine slows the window, never
// charges an idle process for it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanupAll } from '@memoryd/test-support';
import { startDaemon } from './helpers/daemon.js';
import { assertSuccess, overStdio } from './helpers/mcp.js';

after(cleanupAll);

/** A process's CPU time so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What answering left to finish first (the write's sync, the replies' last callbacks). */
const SETTLE_MS = 2_000;
const WINDOW_MS = 8_000;
/** The share of the window an idle process may use: 1% (80 ms, eight clock ticks, in 8 s). */
const IDLE_SHARE = 0.01;

test('an idle daemon and an idle shim burn no CPU while they wait', { skip: !existsSync('/proc/self/stat') && 'no /proc here', timeout: 60_000 }, async () => {
  const daemon = await startDaemon();
  const shim = await overStdio(['--socket', daemon.socket, '--no-autostart']);
  try {
    assertSuccess(shim, 'memory_add', await shim.call('memory_add', { agent_id: 'idle', content: 'the idle test wrote this' }));
    assertSuccess(shim, 'memory_search', await shim.call('memory_search', { agent_id: 'idle', query: 'idle test' }));
    await sleep(SETTLE_MS);
    const before = { daemon: cpuMs(daemon.pid), shim: cpuMs(shim.pid), at: performance.now() };
    await sleep(WINDOW_MS);
    const used = { daemon: cpuMs(daemon.pid) - before.daemon, shim: cpuMs(shim.pid) - before.shim };
    // The window as it passed: a loaded machine may stretch it, which only lets more ticks by.
    const window = performance.now() - before.at;
    const bound = window * IDLE_SHARE;
    assert.ok(used.daemon <= bound, `the daemon used ${used.daemon} ms of CPU in ${window.toFixed(0)} ms idle (at most ${bound.toFixed(0)})`);
    assert.ok(used.shim <= bound, `the shim used ${used.shim} ms of CPU in ${window.toFixed(0)} ms idle (at most ${bound.toFixed(0)})`);
  } finally {
    await shim.close();
    await daemon.stop();
  }
});
