import type { MemoryTags, ParamsOf, ResultOf } from '@memoryd/protocol';
import type { StoreContext } from './context.js';
import { sortTagCounts } from '../rules/tag-counts.js';

/** `memory.tags` on LevelDB: from the agent's search index, which lists its current facts by tag. */
export async function tags(ctx: StoreContext, p: ParamsOf<typeof MemoryTags>): Promise<ResultOf<typeof MemoryTags>> {
  const index = await ctx.search.index(p.agentId);
  return { tags: sortTagCounts(index?.tagCounts() ?? []) };
}
