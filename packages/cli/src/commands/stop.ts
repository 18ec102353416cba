import { DaemonShutdown } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';

export const stop: Command = {
  name: 'stop',
  help: `Usage: memoryctl stop

Asks the daemon to stop (daemon.shutdown): it finishes the requests in
progress, closes the store and removes its socket. Never starts one; exits 3
when no daemon answers.
`,
  async run(ctx) {
    if (commandArgs(ctx.argv, {}, []).help) {
      ctx.out(this.help);
      return 0;
    }
    const client = ctx.client();
    const hello = await client.connect();
    await client.call(DaemonShutdown, {});
    if (ctx.json) ctx.out(json({ stopped: true, pid: hello.pid }));
    else ctx.out(`Stopping memoryd (pid ${hello.pid}).`);
    return 0;
  },
};
