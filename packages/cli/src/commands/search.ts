import { MemorySearch } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs, countOption } from '../args.js';
import { noFactsSentence } from '../no-facts.js';
import { json, oneLine, table, tagsCell } from '../output.js';
import { FILTER_HELP, FILTER_OPTIONS, filterParams } from '../time-words.js';

export const search: Command = {
  name: 'search',
  help: `Usage: memoryctl search AGENT QUERY [--limit N] [--tag T]... [--since W] [--until W]

Searches AGENT's current facts for any word of QUERY, best first
(memory.search); with filters, the best of the facts that pass them.
When none matches, says so, or that AGENT has no facts at all (naming an
agent with a near spelling that has some); the exit code is 0 either way.

Options:
  --limit N   at most N facts, 1-100 (default 10)
${FILTER_HELP}
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { limit: { type: 'string' }, ...FILTER_OPTIONS }, ['AGENT', 'QUERY']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, query] = a.positionals as [string, string];
    const limit = countOption(a.values['limit'], '--limit');
    const filters = filterParams(a.values);
    const { facts } = await ctx.client().call(MemorySearch, { agentId, query, ...(limit === undefined ? {} : { limit }), ...filters });
    if (ctx.json) ctx.out(json(facts));
    else if (facts.length === 0) {
      // An agent with no facts at all (a mistyped AGENT, often) is said as such, not as a query that missed.
      ctx.out((await noFactsSentence(ctx.client(), agentId)) ?? `no facts of agent ${JSON.stringify(agentId)} match ${JSON.stringify(query)}${filterWords(filters)}`);
    } else ctx.out(table(['ID', 'SCORE', 'TAGS', 'CONTENT'], facts.map((f) => [f.id, (f.score ?? 0).toFixed(3), tagsCell(f.tags), oneLine(f.content)])));
    return 0;
  },
};

/** The filters of a search in words, for a sentence that says nothing matched. */
export function filterWords(f: { tags?: string[]; since?: string; until?: string }): string {
  let words = '';
  if (f.tags !== undefined) words += ` tagged ${f.tags.map((t) => JSON.stringify(t)).join(', ')}`;
  if (f.since !== undefined) words += ` since ${f.since}`;
  if (f.until !== undefined) words += ` until ${f.until}`;
  return words;
}
