import { ClientErrorCodes, isClientError } from '@memoryd/client';
import { DaemonShutdown } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';

/** How long stop waits for the daemon to exit: twice the 5 s it promises (docs/operations.md, "Stopping"). */
const EXIT_WAIT_MS = 10_000;

/** Whether process `pid` is gone within `ms` (polled: a pid cannot be waited for by another process). */
async function exited(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      // EPERM: a process of another user now has the pid; ours is gone.
      if ((err as NodeJS.ErrnoException).code === 'ESRCH' || (err as NodeJS.ErrnoException).code === 'EPERM') return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const stop: Command = {
  name: 'stop',
  help: `Usage: memoryctl stop

Asks the daemon to stop (daemon.shutdown): it finishes the requests in
progress, closes the store and removes its socket; returns once it has
exited (at most 10 s: exit 1 if it has not). Never starts one. With
no daemon running it says "memoryd is not running" and exits 0: either
way, none runs afterwards.
`,
  async run(ctx) {
    if (commandArgs(ctx.argv, {}, []).help) {
      ctx.out(this.help);
      return 0;
    }
    const client = ctx.client();
    let hello;
    try {
      hello = await client.connect();
    } catch (err) {
      if (!isClientError(err, ClientErrorCodes.Unavailable)) throw err;
      if (ctx.json) ctx.out(json({ stopped: false, running: false }));
      else ctx.out('memoryd is not running.');
      return 0;
    }
    await client.call(DaemonShutdown, {});
    if (ctx.json) ctx.out(json({ stopped: true, pid: hello.pid }));
    else ctx.out(`Stopping memoryd (pid ${hello.pid}).`);
    // Done when it is gone, so `memoryctl stop && memoryd --verify` finds the store free.
    if (!(await exited(hello.pid, EXIT_WAIT_MS))) {
      ctx.err(`memoryctl: memoryd (pid ${hello.pid}) has not exited after ${EXIT_WAIT_MS / 1000} s`);
      return 1;
    }
    return 0;
  },
};
