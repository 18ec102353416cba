import { type StoredFact, decodeFact } from './codec.js';
import { type Sublevels, guard } from './db.js';
import { agentRange, splitKey } from './keys.js';

/**
 * Each agent's newest current fact, the context of the next fact it adds
 * (ADR 0033): known after this daemon's own add, read from LevelDB (one
 * reverse seek) otherwise. A change that may retire it or bring a newer
 * one (an update, a delete, an import) forgets it; the caller holds the
 * agent's lock.
 */
export class NewestFacts {
  readonly #subs: Sublevels;
  readonly #known = new Map<string, StoredFact | null>();

  constructor(subs: Sublevels) {
    this.#subs = subs;
  }

  /** The agent's newest current fact, or undefined when it has none. */
  async get(agentId: string): Promise<StoredFact | undefined> {
    const known = this.#known.get(agentId);
    if (known !== undefined) return known ?? undefined;
    const [entry] = await guard(`read the newest fact of agent ${agentId}`, () =>
      this.#subs.fact.iterator({ ...agentRange(agentId), reverse: true, limit: 1 }).all(),
    );
    const fact = entry === undefined ? undefined : decodeFact(`fact ${splitKey(entry[0]).rest} of agent ${agentId}`, entry[1], splitKey(entry[0]).rest);
    this.#known.set(agentId, fact ?? null);
    return fact;
  }

  /** The agent's newest current fact is now `fact` (its own add just committed). */
  set(agentId: string, fact: StoredFact): void {
    this.#known.set(agentId, fact);
  }

  /** Forgets what the agent's newest fact is. */
  forget(agentId: string): void {
    this.#known.delete(agentId);
  }
}
