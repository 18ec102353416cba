import { MemoryTags } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { noFactsSentence } from '../no-facts.js';
import { json, table } from '../output.js';

export const tags: Command = {
  name: 'tags',
  help: `Usage: memoryctl tags AGENT

AGENT's tags with how many current facts carry each, most used first
(memory.tags). Tags are shown as filters compare them: case folded, white
space collapsed, so "Work" and "work " are one tag.
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['AGENT']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId] = a.positionals as [string];
    const r = await ctx.client().call(MemoryTags, { agentId });
    if (ctx.json) ctx.out(json(r.tags));
    else if (r.tags.length === 0) ctx.out((await noFactsSentence(ctx.client(), agentId)) ?? `no facts of agent ${JSON.stringify(agentId)} have tags`);
    else ctx.out(table(['TAG', 'FACTS'], r.tags.map((t) => [t.tag, t.count])));
    return 0;
  },
};
