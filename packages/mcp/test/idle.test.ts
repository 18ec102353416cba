// Nothing memoryd ships spins while it waits (issue 29, ADR 0029): a
// daemon and a memoryd-mcp shim that have served a search and a write,
// then are left alone, use under 0.1% of a CPU. Read from each process's
// own CPU time (/proc/PID/stat, utime + stime, Linux), over a window long
// enough that a poll of even 100 µs per millisecond would show many times
// over.
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

const WINDOW_MS = 60_000;

test('an idle daemon and an idle shim use under 0.1% of a CPU', { skip: !existsSync('/proc/self/stat') && 'no /proc here', timeout: 120_000 }, async () => {
  const daemon = await startDaemon();
  const shim = await overStdio(['--socket', daemon.socket, '--no-autostart']);
  try {
    assertSuccess(shim, 'memory_add', await shim.call('memory_add', { agent_id: 'idle', content: 'the idle test wrote this' }));
    assertSuccess(shim, 'memory_search', await shim.call('memory_search', { agent_id: 'idle', query: 'idle test' }));
    // What answering left to settle first: V8 collects garbage for some
    // seconds after activity (its memory reducer), then sleeps too.
    await sleep(10_000);
    const before = { daemon: cpuMs(daemon.pid), shim: cpuMs(shim.pid) };
    await sleep(WINDOW_MS);
    const used = { daemon: cpuMs(daemon.pid) - before.daemon, shim: cpuMs(shim.pid) - before.shim };
    // 0.1% of a minute is 60 ms: six clock ticks.
    assert.ok(used.daemon <= WINDOW_MS / 1000, `the daemon used ${used.daemon} ms of CPU in ${WINDOW_MS} ms idle`);
    assert.ok(used.shim <= WINDOW_MS / 1000, `the shim used ${used.shim} ms of CPU in ${WINDOW_MS} ms idle`);
  } finally {
    await shim.close();
    await daemon.stop();
  }
});
