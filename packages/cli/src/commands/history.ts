import { type FactVersion, MemoryHistory } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json, oneLine, table, tagsCell } from '../output.js';

/** What a version changed from the version it replaced, in a few words. */
function change(v: FactVersion, before: FactVersion | undefined): string {
  if (before === undefined) return 'added';
  const words: string[] = [];
  if (before.content !== v.content) words.push('text');
  if (tagsCell(before.tags) !== tagsCell(v.tags)) words.push('tags');
  return words.length === 0 ? 'rewritten' : `${words.join(' and ')} changed`;
}

/** What became of a version: current, deleted at, or replaced by another at. */
function fate(v: FactVersion): string {
  if (v.deletedAt !== undefined) return `deleted ${v.deletedAt}`;
  if (v.supersededBy !== undefined) return `replaced by ${v.supersededBy} ${v.updatedAt ?? ''}`.trimEnd();
  return 'current';
}

export const history: Command = {
  name: 'history',
  help: `Usage: memoryctl history AGENT FACT_ID

Every version of a fact, oldest first (memory.history): when each was
written, what it changed from the one it replaced (text, tags), its tags
and text, and what became of it (replaced by which fact, deleted, or
current). FACT_ID may be any version: current, replaced or deleted.
Exits 4 when AGENT never had FACT_ID.
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['AGENT', 'FACT_ID']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, factId] = a.positionals as [string, string];
    const { versions } = await ctx.client().call(MemoryHistory, { agentId, factId });
    if (ctx.json) {
      ctx.out(json(versions));
      return 0;
    }
    const byId = new Map(versions.map((v) => [v.id, v]));
    // A version replaced what named it as supersededBy when it was written as that one was replaced; an
    // update onto a fact that already held the text (a merge) leaves that fact "added".
    const before = new Map<string, FactVersion>();
    for (const v of versions) {
      const next = v.supersededBy === undefined ? undefined : byId.get(v.supersededBy);
      if (next !== undefined && next.createdAt >= (v.updatedAt ?? v.createdAt)) before.set(next.id, v);
    }
    const rows = versions.map((v) => [v.id, v.createdAt, change(v, before.get(v.id)), fate(v), tagsCell(v.tags), oneLine(v.content)]);
    ctx.out(table(['ID', 'WRITTEN', 'CHANGE', 'THEN', 'TAGS', 'CONTENT'], rows));
    return 0;
  },
};
