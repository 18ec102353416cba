import { type Fact, MemoryList } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs, countOption } from '../args.js';
import { noFactsSentence } from '../no-facts.js';
import { json, oneLine, table, tagsCell } from '../output.js';
import { FILTER_HELP, FILTER_OPTIONS, filterParams } from '../time-words.js';
import { filterWords } from './search.js';

/** Facts read per memory.list call. */
const PAGE = 100;

export const list: Command = {
  name: 'list',
  help: `Usage: memoryctl list AGENT [--newest] [--limit N] [--tag T]... [--since W] [--until W]

Lists AGENT's current facts, oldest first (newest first with --newest),
paging through memory.list; with filters, only those that pass them.
When AGENT has none, says so, naming an agent with a near spelling that
has some.

Options:
  --newest    newest first: with --limit N, the N latest facts
  --limit N   at most N facts (default: all); when more exist, a last line
              on stderr says so
${FILTER_HELP}
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { newest: { type: 'boolean' }, limit: { type: 'string' }, ...FILTER_OPTIONS }, ['AGENT']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId] = a.positionals as [string];
    const max = countOption(a.values['limit'], '--limit') ?? Infinity;
    const filters = filterParams(a.values);
    const order = a.values['newest'] === true ? { order: 'newest' as const } : {};
    const facts: Fact[] = [];
    let after: string | undefined;
    let more = false;
    while (facts.length < max) {
      const limit = Math.min(PAGE, max - facts.length);
      const page = await ctx.client().call(MemoryList, { agentId, limit, ...order, ...filters, ...(after === undefined ? {} : { after }) });
      facts.push(...page.facts);
      if (page.next === undefined) break;
      after = page.next;
      // --limit reached with a page still to read: say that more exist rather than cut off in silence.
      more = facts.length >= max;
    }
    if (ctx.json) ctx.out(json(facts));
    else if (facts.length === 0) {
      const none = Object.keys(filters).length === 0 ? 'has no facts' : `has no facts${filterWords(filters)}`;
      ctx.out((await noFactsSentence(ctx.client(), agentId)) ?? `agent ${JSON.stringify(agentId)} ${none}`);
    }
    else ctx.out(table(['ID', 'CREATED', 'TAGS', 'CONTENT'], facts.map((f) => [f.id, f.createdAt, tagsCell(f.tags), oneLine(f.content)])));
    if (more) ctx.err(`memoryctl: more facts exist after ${facts.length === 1 ? 'this one' : `these ${facts.length}`}; raise --limit to see them`);
    return 0;
  },
};
