import type { AgentList, ResultOf } from '@memoryd/protocol';
import { DaemonError, DaemonErrorCodes, decodeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type AgentStats, decodeStats, encodeStats } from './codec.js';
import { type BatchOp, type StoreContext, type Sublevel, type Sublevels, type Totals, guard } from './context.js';
import { isAgentId, statsKey } from './keys.js';
import type { StoreCounts } from './memory-store.js';

/**
 * The operations of one change, plus how it moves each agent's counters.
 * {@link commit} adds the counter updates and writes it all as one atomic
 * batch, so counters never disagree with the records they count.
 */
export class WriteBatch {
  readonly ops: BatchOp[] = [];
  readonly #deltas = new Map<string, AgentStats>();

  put(sublevel: Sublevel, key: string, value: string): void {
    this.ops.push({ type: 'put', sublevel, key, value });
  }

  del(sublevel: Sublevel, key: string): void {
    this.ops.push({ type: 'del', sublevel, key });
  }

  /** Moves an agent's current-fact and checkpoint counters by the given amounts. */
  count(agentId: string, facts: number, checkpoints: number): void {
    const d = this.#deltas.get(agentId) ?? { facts: 0, checkpoints: 0 };
    d.facts += facts;
    d.checkpoints += checkpoints;
    this.#deltas.set(agentId, d);
  }

  /** Agents whose counters this batch moves. */
  deltas(): ReadonlyMap<string, AgentStats> {
    return this.#deltas;
  }
}

/** Reads an agent's counters; absent means 0/0. */
export async function readStats(ctx: StoreContext, agentId: string): Promise<AgentStats | undefined> {
  const text = await guard(`read counters of agent ${agentId}`, () => ctx.subs.stats.get(statsKey(agentId)));
  return text === undefined ? undefined : decodeStats(`counters of agent ${agentId}`, text);
}

/**
 * Writes a batch atomically with `sync` from the options. The caller holds
 * the lock of every agent whose counters move, so reading them here and
 * writing them back in the same batch is exact.
 */
export async function commit(ctx: StoreContext, batch: WriteBatch, what: string): Promise<void> {
  const move: Totals = { facts: 0, checkpoints: 0, agents: 0 };
  for (const [agentId, d] of batch.deltas()) {
    if (d.facts === 0 && d.checkpoints === 0) continue;
    const before = await readStats(ctx, agentId);
    const after = { facts: (before?.facts ?? 0) + d.facts, checkpoints: (before?.checkpoints ?? 0) + d.checkpoints };
    if (after.facts < 0 || after.checkpoints < 0) {
      // Only a bug or a damaged store gets here; writing would make it worse.
      throw new DaemonError(DaemonErrorCodes.Storage, `${what}: counters of agent ${agentId} would go below zero`);
    }
    // The entry exists exactly while the agent has something to list.
    if (after.facts === 0 && after.checkpoints === 0) batch.del(ctx.subs.stats, statsKey(agentId));
    else batch.put(ctx.subs.stats, statsKey(agentId), encodeStats(after));
    move.facts += d.facts;
    move.checkpoints += d.checkpoints;
    move.agents += (after.facts + after.checkpoints > 0 ? 1 : 0) - (before === undefined ? 0 : 1);
  }
  if (batch.ops.length === 0) return;
  await guard(what, () => ctx.db.batch(batch.ops, { sync: ctx.sync }));
  if (!(ctx.totals instanceof DaemonError)) {
    ctx.totals.facts += move.facts;
    ctx.totals.checkpoints += move.checkpoints;
    ctx.totals.agents += move.agents;
  }
}

/** Every agent's counters, sorted by agentId (the stats keys' order). */
async function allStats(subs: Sublevels): Promise<Array<{ agentId: string; stats: AgentStats }>> {
  const entries = await guard('read agent counters', () => subs.stats.iterator().all());
  return entries.map(([agentId, text]) => {
    if (!isAgentId(agentId)) throw decodeError('agent counters', new Error(`malformed key ${JSON.stringify(agentId)}`));
    return { agentId, stats: decodeStats(`counters of agent ${agentId}`, text) };
  });
}

/**
 * Sums the counters once at open; from then on commits move the totals.
 * A counter that does not decode poisons the totals: every counts() call
 * then reports that error instead of a wrong number.
 */
export async function loadTotals(subs: Sublevels, logger: Logger): Promise<Totals | DaemonError> {
  try {
    const totals: Totals = { facts: 0, checkpoints: 0, agents: 0 };
    for (const { stats } of await allStats(subs)) {
      totals.facts += stats.facts;
      totals.checkpoints += stats.checkpoints;
      totals.agents += 1;
    }
    return totals;
  } catch (err) {
    if (err instanceof DaemonError && err.code === DaemonErrorCodes.Decode) {
      logger.error('agent counters failed to decode', { err });
      return err;
    }
    throw err;
  }
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
  if (ctx.totals instanceof DaemonError) throw ctx.totals;
  return { ...ctx.totals };
}
