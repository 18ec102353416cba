import { MemoryReflect } from '@memoryd/protocol';
import { UsageError } from '@memoryd/client/args';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json } from '../output.js';

export const update: Command = {
  name: 'update',
  help: `Usage: memoryctl update AGENT FACT_ID [CONTENT] [--tag T]... [--no-tags]

Changes a fact's text, its tags, or both (memory.reflect update): the new
version is a new fact, whose id is printed; the old one is kept as history
(memoryctl history). Without CONTENT the text stays; without --tag or
--no-tags the tags stay. Exits 4 when FACT_ID is not a current fact.

Options:
  --tag T     the new version's tags, replacing the old ones (repeatable,
              at most 32)
  --no-tags   the new version has no tags
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { tag: { type: 'string', multiple: true }, 'no-tags': { type: 'boolean' } }, ['AGENT', 'FACT_ID', 'CONTENT'], 1);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, factId, content] = a.positionals as [string, string, string | undefined];
    const given = a.values['tag'] as string[] | undefined;
    const none = a.values['no-tags'] === true;
    if (given !== undefined && none) throw new UsageError('--tag and --no-tags cannot both be given');
    const tags = none ? [] : given;
    if (content === undefined && tags === undefined) throw new UsageError('nothing to change: give CONTENT, --tag T or --no-tags');
    const r = await ctx.client().call(MemoryReflect, {
      agentId,
      action: 'update',
      factId,
      ...(content === undefined ? {} : { content }),
      ...(tags === undefined ? {} : { tags }),
    });
    if (ctx.json) ctx.out(json(r));
    else ctx.out(`Updated fact ${factId} of agent ${JSON.stringify(agentId)}: the new version is fact ${r.supersededBy ?? '?'}.`);
    return 0;
  },
};
