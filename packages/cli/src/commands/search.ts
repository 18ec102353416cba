import { MemorySearch } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs, countOption } from '../args.js';
import { noFactsSentence } from '../no-facts.js';
import { json, oneLine, table, tagsCell } from '../output.js';

export const search: Command = {
  name: 'search',
  help: `Usage: memoryctl search AGENT QUERY [--limit N]

Searches AGENT's current facts for any word of QUERY, best first
(memory.search). When none matches, says so, or that AGENT has no facts
at all (naming an agent with a near spelling that has some); the exit
code is 0 either way.

Options:
  --limit N   at most N facts, 1-100 (default 10)
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { limit: { type: 'string' } }, ['AGENT', 'QUERY']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, query] = a.positionals as [string, string];
    const limit = countOption(a.values['limit'], '--limit');
    const { facts } = await ctx.client().call(MemorySearch, { agentId, query, ...(limit === undefined ? {} : { limit }) });
    if (ctx.json) ctx.out(json(facts));
    else if (facts.length === 0) {
      // An agent with no facts at all (a mistyped AGENT, often) is said as such, not as a query that missed.
      ctx.out((await noFactsSentence(ctx.client(), agentId)) ?? `no facts of agent ${JSON.stringify(agentId)} match ${JSON.stringify(query)}`);
    } else ctx.out(table(['ID', 'SCORE', 'TAGS', 'CONTENT'], facts.map((f) => [f.id, (f.score ?? 0).toFixed(3), tagsCell(f.tags), oneLine(f.content)])));
    return 0;
  },
};
