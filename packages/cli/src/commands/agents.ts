import { AgentList } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json, table } from '../output.js';

export const agents: Command = {
  name: 'agents',
  help: `Usage: memoryctl agents

Lists every agent with at least one current fact or checkpoint, with how
many of each it has.
`,
  async run(ctx) {
    if (commandArgs(ctx.argv, {}, []).help) {
      ctx.out(this.help);
      return 0;
    }
    const { agents: list } = await ctx.client().call(AgentList, {});
    if (ctx.json) ctx.out(json(list));
    else if (list.length === 0) ctx.out('no agents');
    else ctx.out(table(['AGENT', 'FACTS', 'CHECKPOINTS'], list.map((a) => [a.agentId, a.facts, a.checkpoints])));
    return 0;
  },
};
