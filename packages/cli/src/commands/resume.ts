import { CheckpointResume } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { Exit } from '../exit-codes.js';
import { json } from '../output.js';

export const resume: Command = {
  name: 'resume',
  help: `Usage: memoryctl resume AGENT [--checkpoint ID]

Prints AGENT's latest checkpoint, or the one with ID (checkpoint.resume):
its id, time, message count and state. Exits 4 when there is none.

Options:
  --checkpoint ID   this checkpoint rather than the latest
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { checkpoint: { type: 'string' } }, ['AGENT']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId] = a.positionals as [string];
    const checkpointId = a.values['checkpoint'] as string | undefined;
    const client = ctx.client();
    await client.connect();
    // Typed absence only where the daemon announced it; else absence stays error -32004 (exit 4).
    const typed = client.hasCapability('reportNotFound');
    const r = await client.call(CheckpointResume, { agentId, ...(checkpointId === undefined ? {} : { checkpointId }), ...(typed ? { reportNotFound: true } : {}) });
    if ('notFound' in r) {
      ctx.err(`memoryctl: no checkpoint${checkpointId === undefined ? '' : ` ${checkpointId}`} for agent ${JSON.stringify(agentId)}`);
      return Exit.notFound;
    }
    const c = r.checkpoint;
    if (ctx.json) ctx.out(json(c));
    else {
      const lines = [`Checkpoint ${c.id} for agent ${JSON.stringify(agentId)} (created ${c.createdAt})`];
      if (c.messageCount !== undefined) lines.push(`Messages: ${c.messageCount}`);
      lines.push('State:', JSON.stringify(c.state, null, 2));
      ctx.out(lines.join('\n'));
    }
    return 0;
  },
};
