import { DaemonError, DaemonErrorCodes, decodeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type AgentStats, decodeStats } from './codec.js';
import { type Sublevels, guard } from './db.js';
import { isAgentId } from './keys.js';
import type { StoreCounts } from '../memory-store.js';

/**
 * Every agent's counters, loaded once at open and moved by each commit
 * after its batch is written. The daemon is the store's only writer and a
 * commit holds the agent's lock, so this copy is exact, and a write needs
 * no read of the `stats` sublevel (that read was a third of an add's time).
 * A counter that fails to decode poisons its agent (every write of that
 * agent reports the error) and the totals, instead of guessing.
 */
export class AgentCounters {
  readonly #agents = new Map<string, AgentStats | DaemonError>();
  #totals: StoreCounts = { facts: 0, checkpoints: 0, agents: 0 };
  #poison: DaemonError | undefined;

  /** Reads the `stats` sublevel once. */
  static async load(subs: Sublevels, logger: Logger): Promise<AgentCounters> {
    const counters = new AgentCounters();
    const entries = await guard('read agent counters', () => subs.stats.iterator().all());
    for (const [agentId, text] of entries) {
      try {
        if (!isAgentId(agentId)) throw decodeError('agent counters', new Error(`malformed key ${JSON.stringify(agentId)}`));
        const stats = decodeStats(`counters of agent ${agentId}`, text);
        counters.#agents.set(agentId, stats);
        counters.#totals.facts += stats.facts;
        counters.#totals.checkpoints += stats.checkpoints;
        counters.#totals.agents += 1;
      } catch (err) {
        if (!(err instanceof DaemonError && err.code === DaemonErrorCodes.Decode)) throw err;
        logger.error('agent counters failed to decode', { agentId, err });
        counters.#agents.set(agentId, err);
        counters.#poison ??= err;
      }
    }
    return counters;
  }

  /** An agent's counters (0/0 when it has none); throws its decode error. */
  get(agentId: string): AgentStats {
    const stats = this.#agents.get(agentId);
    if (stats instanceof DaemonError) throw stats;
    return stats === undefined ? { facts: 0, checkpoints: 0, length: 0 } : { ...stats };
  }

  /** Records an agent's counters after a committed batch set them. */
  set(agentId: string, after: AgentStats): void {
    const before = this.get(agentId);
    const had = this.#agents.has(agentId);
    const has = after.facts + after.checkpoints > 0;
    if (has) this.#agents.set(agentId, { ...after });
    else this.#agents.delete(agentId);
    this.#totals.facts += after.facts - before.facts;
    this.#totals.checkpoints += after.checkpoints - before.checkpoints;
    this.#totals.agents += (has ? 1 : 0) - (had ? 1 : 0);
  }

  /** Every agent with counters, those that failed to decode too. */
  agentIds(): IterableIterator<string> {
    return this.#agents.keys();
  }

  /** The agents with counters that decoded, and theirs. */
  *entries(): IterableIterator<[string, AgentStats]> {
    for (const [agentId, stats] of this.#agents) if (!(stats instanceof DaemonError)) yield [agentId, { ...stats }];
  }

  /** Totals for `daemon.status`; throws the first decode error, if any. */
  totals(): StoreCounts {
    if (this.#poison !== undefined) throw this.#poison;
    return { ...this.#totals };
  }
}
