import { MemoryAdd } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';

export const add: Command = {
  name: 'add',
  help: `Usage: memoryctl add AGENT CONTENT [--tag TAG]...

Stores CONTENT as a fact of AGENT (memory.add). Adding text the agent
already holds stores nothing new and prints the existing fact's id.

Options:
  --tag TAG   a tag of the fact (repeatable, at most 32)
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { tag: { type: 'string', multiple: true } }, ['AGENT', 'CONTENT']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, content] = a.positionals as [string, string];
    const tags = a.values['tag'] as string[] | undefined;
    const r = await ctx.client().call(MemoryAdd, { agentId, content, ...(tags === undefined ? {} : { tags }) });
    if (ctx.json) ctx.out(json(r));
    else ctx.out(r.duplicate === true ? `Already stored as fact ${r.factId} for agent ${JSON.stringify(agentId)}.` : `Stored fact ${r.factId} for agent ${JSON.stringify(agentId)}.`);
    return 0;
  },
};
