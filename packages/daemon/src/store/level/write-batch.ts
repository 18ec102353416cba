import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import { type AgentStats, decodeStats, encodeStats } from './codec.js';
import type { StoreContext } from './context.js';
import { type BatchOp, type Sublevel, guard } from './db.js';
import { recordKey, stampKey, statsKey } from './keys.js';
import type { FactChange } from '../vector-store.js';
import type { IndexChange } from './search-indexes.js';

// The LevelDB commit path: one change's operations and the counters they
// move, written as one atomic batch, then applied to the search indexes
// and told to meaning search (docs/architecture.md, "Storage layout").

/**
 * The operations of one change, plus how it moves each agent's counters.
 * {@link commit} adds the counter updates and writes it all as one atomic
 * batch, so counters never disagree with the records they count.
 */
export class WriteBatch {
  /** The puts and dels, in order. */
  readonly ops: BatchOp[] = [];
  readonly #deltas = new Map<string, AgentStats>();
  readonly #changes = new Map<string, IndexChange[]>();

  /** Adds a put of `key` in `sublevel`. */
  put(sublevel: Sublevel, key: string, value: string): void {
    this.ops.push({ type: 'put', key: sublevel.fullKey(key), value: sublevel.seal(key, value) });
  }

  /** Adds a delete of `key` in `sublevel`. */
  del(sublevel: Sublevel, key: string): void {
    this.ops.push({ type: 'del', key: sublevel.fullKey(key) });
  }

  /**
   * Moves an agent's counters by the given amounts: current facts,
   * checkpoints, and the summed search length of its current facts.
   */
  count(agentId: string, facts: number, checkpoints: number, length = 0): void {
    const d = this.#deltas.get(agentId) ?? { facts: 0, checkpoints: 0, length: 0 };
    d.facts += facts;
    d.checkpoints += checkpoints;
    d.length += length;
    this.#deltas.set(agentId, d);
  }

  /** Records a fact this batch indexes (+1) or unindexes (-1), in order. */
  indexed(agentId: string, change: IndexChange): void {
    let changes = this.#changes.get(agentId);
    if (changes === undefined) this.#changes.set(agentId, (changes = []));
    changes.push(change);
  }

  /** The facts this batch indexes and unindexes, by agent, in order. */
  changes(): ReadonlyMap<string, readonly IndexChange[]> {
    return this.#changes;
  }

  /** Agents whose counters this batch moves. */
  deltas(): ReadonlyMap<string, AgentStats> {
    return this.#deltas;
  }
}

/**
 * Writes a batch atomically with `sync` from the options, with the counter
 * updates it implies. The caller holds the lock of every agent whose
 * counters move, so the in-memory counters it starts from are exact.
 */
export async function commit(ctx: StoreContext, batch: WriteBatch, what: string): Promise<void> {
  const moved: Array<[string, AgentStats]> = [];
  for (const [agentId, d] of batch.deltas()) {
    if (d.facts === 0 && d.checkpoints === 0 && d.length === 0) continue;
    const before = ctx.counters.get(agentId);
    const after = {
      facts: before.facts + d.facts,
      checkpoints: before.checkpoints + d.checkpoints,
      length: before.length + d.length,
    };
    if (after.facts < 0 || after.checkpoints < 0 || after.length < 0 || (after.facts === 0 && after.length !== 0)) {
      // Only a bug or a damaged store gets here; writing would make it worse.
      throw new DaemonError(DaemonErrorCodes.Storage, `${what}: counters of agent ${agentId} would go below zero`);
    }
    // The entry exists exactly while the agent has something to list.
    if (after.facts === 0 && after.checkpoints === 0) batch.del(ctx.subs.stats, statsKey(agentId));
    else batch.put(ctx.subs.stats, statsKey(agentId), encodeStats(after));
    moved.push([agentId, after]);
  }
  // Every agent whose facts change gets a new stamp in the same batch: an
  // index image made before this batch no longer matches the store.
  const stamp = batch.changes().size > 0 ? ctx.newStamp() : '';
  for (const agentId of batch.changes().keys()) batch.put(ctx.subs.meta, stampKey(agentId), stamp);
  // A fact leaving the current set takes its vector with it, in the same batch.
  for (const [agentId, changes] of batch.changes()) {
    for (const c of changes) if (c.sign < 0) batch.del(ctx.subs.vec, recordKey(agentId, c.id));
  }
  if (batch.ops.length === 0) return;
  const agents = [...batch.changes().keys()];
  ctx.search.pending(agents, 1);
  try {
    await guard(what, () => ctx.writer.write(batch.ops));
    for (const [agentId, after] of moved) ctx.counters.set(agentId, after);
    for (const [agentId, changes] of batch.changes()) {
      ctx.search.apply(agentId, changes, stamp);
      for (const c of changes) if (c.sign < 0) ctx.facts.delete(agentId, c.id);
    }
    if (ctx.factListeners.length > 0) notifyListeners(ctx, batch);
  } finally {
    ctx.search.pending(agents, -1);
  }
}

/** Tells the fact listeners what a committed batch changed; a listener's failure is logged, never the write's. */
function notifyListeners(ctx: StoreContext, batch: WriteBatch): void {
  const changes: FactChange[] = [];
  for (const [agentId, list] of batch.changes()) for (const c of list) changes.push({ agentId, id: c.id, sign: c.sign });
  for (const listener of ctx.factListeners) {
    try {
      listener(changes);
    } catch (err) {
      ctx.logger.error('a listener of fact changes failed', { err });
    }
  }
}

