import type { AgentList, ResultOf } from '@memoryd/protocol';
import { decodeError } from '../../errors.js';
import { type AgentStats, decodeStats } from './codec.js';
import type { StoreContext } from './context.js';
import { type Sublevels, guard } from './db.js';
import { isAgentId } from './keys.js';
import type { StoreCounts } from '../memory-store.js';

// The agents' counters, read: `agent.list` and `daemon.status`'s counts
// (write-batch.ts keeps them in step with every write).

/** Every agent's counters, sorted by agentId (the stats keys' order). */
async function allStats(subs: Sublevels): Promise<Array<{ agentId: string; stats: AgentStats }>> {
  const entries = await guard('read agent counters', () => subs.stats.iterator().all());
  return entries.map(([agentId, text]) => {
    if (!isAgentId(agentId)) throw decodeError('agent counters', new Error(`malformed key ${JSON.stringify(agentId)}`));
    return { agentId, stats: decodeStats(`counters of agent ${agentId}`, text) };
  });
}

/** `agent.list`: agents with at least one current fact or checkpoint, by agentId. */
export async function listAgents(ctx: StoreContext): Promise<ResultOf<typeof AgentList>> {
  const agents = (await allStats(ctx.subs)).map(({ agentId, stats }) => ({
    agentId,
    facts: stats.facts,
    checkpoints: stats.checkpoints,
  }));
  return { agents };
}

/** Totals for `daemon.status`, without reading any record. */
export function counts(ctx: StoreContext): StoreCounts {
  return ctx.counters.totals();
}
