// Nothing memoryd ships spins while it waits (issue 29, ADR 0029): a
// daemon and a memoryd-mcp shim that have served a search and a write,
// then are left alone, burn no CPU. Read from each process's own CPU time
// (/proc/PID/stat, utime + stime, Linux) over five windows of two seconds.
// A poll or a spin uses CPU in every window; a one-off burst does not. Idle
// V8 still collects garbage now and then (its memory reducer runs a full
// collection about eight seconds after the last one), which on a loaded
// machine costs up to ten clock ticks in one window. So the median window is
// judged: at most 1% of it, a tenth of what a poll of 100 µs per
// millisecond would use and a hundredth of a spinning process.
// CPU time, not wall time: a loaded machine slows a window, never
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
const WINDOW_MS = 2_000;
const WINDOWS = 5;
/** The share of a window an idle process may use: 1% (20 ms, two clock ticks, in 2 s). */
const IDLE_SHARE = 0.01;

interface Window { daemon: number; shim: number; ms: number }

/** The window whose use, as a share of its length, is the median of the five. */
function medianShare(windows: Window[], who: 'daemon' | 'shim'): { used: number; ms: number } {
  const sorted = [...windows].sort((a, b) => a[who] / a.ms - b[who] / b.ms);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  return { used: middle[who], ms: middle.ms };
}

test('an idle daemon and an idle shim burn no CPU while they wait', { skip: !existsSync('/proc/self/stat') && 'no /proc here', timeout: 60_000 }, async () => {
  const daemon = await startDaemon();
  const shim = await overStdio(['--socket', daemon.socket, '--no-autostart']);
  try {
    assertSuccess(shim, 'memory_add', await shim.call('memory_add', { agent_id: 'idle', content: 'the idle test wrote this' }));
    assertSuccess(shim, 'memory_search', await shim.call('memory_search', { agent_id: 'idle', query: 'idle test' }));
    await sleep(SETTLE_MS);
    const windows: Window[] = [];
    for (let i = 0; i < WINDOWS; i++) {
      const before = { daemon: cpuMs(daemon.pid), shim: cpuMs(shim.pid), at: performance.now() };
      await sleep(WINDOW_MS);
      // The window as it passed: a loaded machine may stretch it, which only lets more ticks by.
      windows.push({ daemon: cpuMs(daemon.pid) - before.daemon, shim: cpuMs(shim.pid) - before.shim, ms: performance.now() - before.at });
    }
    const all = windows.map((w) => `${w.daemon}/${w.shim} ms in ${w.ms.toFixed(0)}`).join(', ');
    for (const who of ['daemon', 'shim'] as const) {
      const { used, ms } = medianShare(windows, who);
      assert.ok(used <= ms * IDLE_SHARE, `the ${who} used ${used} ms of CPU in its median ${ms.toFixed(0)} ms idle window (at most ${(ms * IDLE_SHARE).toFixed(0)}); daemon/shim per window: ${all}`);
    }
  } finally {
    await shim.close();
    await daemon.stop();
  }
});
