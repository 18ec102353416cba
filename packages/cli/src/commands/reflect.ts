import { MemoryReflect } from '@memoryd/protocol';
import { UsageError } from '@memoryd/client/args';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';
import { didYouMean } from '../suggest.js';

export const reflect: Command = {
  name: 'reflect',
  help: `Usage: memoryctl reflect AGENT update FACT_ID CONTENT
       memoryctl reflect AGENT delete FACT_ID

Replaces a fact's text (update: the new version is a new fact, whose id is
printed; the old one is kept as history) or forgets it (delete), through
memory.reflect. Exits 4 when FACT_ID is not a current fact.
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['AGENT', 'ACTION', 'FACT_ID', 'CONTENT'], 1);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, action, factId, content] = a.positionals as [string, string, string, string | undefined];
    if (action !== 'update' && action !== 'delete') throw new UsageError(`ACTION must be update or delete, got ${JSON.stringify(action)}${didYouMean(action, ['update', 'delete'])}`);
    if (action === 'update' && content === undefined) throw new UsageError('missing CONTENT (update replaces the fact\'s text with it)');
    if (action === 'delete' && content !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(content)} (delete takes no CONTENT)`);
    const r = await ctx.client().call(MemoryReflect, { agentId, action, factId, ...(content === undefined ? {} : { content }) });
    if (ctx.json) ctx.out(json(r));
    else if (r.action === 'update') ctx.out(`Updated fact ${factId} of agent ${JSON.stringify(agentId)}: the new version is fact ${r.supersededBy ?? '?'}.`);
    else ctx.out(`Deleted fact ${factId} of agent ${JSON.stringify(agentId)}.`);
    return 0;
  },
};
