import type { MemoryHistory, ParamsOf, ResultOf } from '@memoryd/protocol';
import type { StoredFact } from './codec.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { readCurrentFact, readPastFact } from './facts.js';
import { agentRange, splitKey } from './keys.js';
import { decodeFact } from './codec.js';
import { factHistory } from '../rules/fact-history.js';

/** Past versions read per step of the scan for predecessors. */
const SCAN_STEP = 1_000;

/**
 * The agent's past versions by the version that superseded them, read
 * once per history call: LevelDB keeps no index from a version back to
 * those it replaced, so the first look back scans the agent's history.
 */
async function predecessorsByNext(ctx: StoreContext, agentId: string): Promise<Map<string, StoredFact[]>> {
  const byNext = new Map<string, StoredFact[]>();
  const iterator = ctx.subs.hist.iterator(agentRange(agentId));
  try {
    for (;;) {
      const entries = await guard(`read the history of agent ${agentId}`, () => iterator.nextv(SCAN_STEP));
      if (entries.length === 0) break;
      for (const [key, text] of entries) {
        const id = splitKey(key).rest;
        const fact = decodeFact(`fact version ${id} of agent ${agentId}`, text, id);
        if (fact.supersededBy === undefined) continue;
        const list = byNext.get(fact.supersededBy);
        if (list === undefined) byNext.set(fact.supersededBy, [fact]);
        else list.push(fact);
      }
    }
  } finally {
    await guard('close a history iterator', () => iterator.close());
  }
  return byNext;
}

/** `memory.history` on LevelDB (store/rules/fact-history.ts). */
export async function history(ctx: StoreContext, p: ParamsOf<typeof MemoryHistory>): Promise<ResultOf<typeof MemoryHistory>> {
  let byNext: Map<string, StoredFact[]> | undefined;
  const versions = await factHistory(p.agentId, p.factId, {
    read: async (id) => (await readCurrentFact(ctx, p.agentId, id)) ?? (await readPastFact(ctx, p.agentId, id)),
    predecessors: async (ids) => {
      byNext ??= await predecessorsByNext(ctx, p.agentId);
      return ids.flatMap((id) => byNext!.get(id) ?? []);
    },
  });
  return { versions };
}
