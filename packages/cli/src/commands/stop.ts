import { ClientErrorCodes, isClientError } from '@memoryd/client';
import { DaemonShutdown } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';

export const stop: Command = {
  name: 'stop',
  help: `Usage: memoryctl stop

Asks the daemon to stop (daemon.shutdown): it finishes the requests in
progress, closes the store and removes its socket. Never starts one. With
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
    return 0;
  },
};
