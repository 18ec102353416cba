import { CheckpointList } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json, table } from '../output.js';

export const checkpoints: Command = {
  name: 'checkpoints',
  help: `Usage: memoryctl checkpoints AGENT

Lists AGENT's checkpoints, oldest first, with their time and message count
(paging through checkpoint.list).
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['AGENT']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId] = a.positionals as [string];
    const all: Array<{ id: string; createdAt: string; messageCount?: number }> = [];
    let after: string | undefined;
    for (;;) {
      const page = await ctx.client().call(CheckpointList, after === undefined ? { agentId, limit: 100 } : { agentId, limit: 100, after });
      all.push(...page.checkpoints);
      if (page.next === undefined) break;
      after = page.next;
    }
    if (ctx.json) ctx.out(json(all));
    else if (all.length === 0) ctx.out(`agent ${JSON.stringify(agentId)} has no checkpoints`);
    else ctx.out(table(['ID', 'CREATED', 'MESSAGES'], all.map((c) => [c.id, c.createdAt, c.messageCount ?? ''])));
    return 0;
  },
};
