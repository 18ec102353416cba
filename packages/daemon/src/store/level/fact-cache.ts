import type { StoredFact } from './codec.js';

/** One generation of the cache: agent id, then fact id. */
type Generation = Map<string, Map<string, StoredFact>>;

/**
 * Facts recently returned by searches, decoded. A search reads the facts
 * it returns one by one (`getSync` and a validating decode, ~10 µs with
 * the caches cold between requests), and agents search for the same facts
 * again and again. A fact id names one immutable version, so an entry
 * never goes stale; one that stops being current is dropped when its
 * change commits (it could not be returned anyway: the index no longer
 * lists it).
 *
 * Two generations approximate least-recently-used at the cost of a map
 * lookup: facts are set in the young one, a hit in the old one moves the
 * fact to the young one, and when the young one is full the old one is
 * dropped and the young one becomes old. It holds between `maxFacts / 2`
 * and `maxFacts` facts. (Reordering one map on every hit, a strict LRU,
 * cost more than the reads it saved.)
 */
export class FactCache {
  #young: Generation = new Map();
  #old: Generation = new Map();
  #youngSize = 0;
  readonly #generationSize: number;

  constructor(readonly maxFacts: number) {
    this.#generationSize = Math.floor(maxFacts / 2);
  }

  get(agentId: string, id: string): StoredFact | undefined {
    const fact = this.#young.get(agentId)?.get(id);
    if (fact !== undefined) return fact;
    const old = this.#old.get(agentId)?.get(id);
    if (old !== undefined) this.set(agentId, old);
    return old;
  }

  set(agentId: string, fact: StoredFact): void {
    if (this.#generationSize === 0) return;
    if (this.#youngSize >= this.#generationSize) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngSize = 0;
    }
    let facts = this.#young.get(agentId);
    if (facts === undefined) this.#young.set(agentId, (facts = new Map()));
    const before = facts.size;
    facts.set(fact.id, fact);
    this.#youngSize += facts.size - before;
  }

  /** A fact stopped being current. */
  delete(agentId: string, id: string): void {
    const young = this.#young.get(agentId);
    if (young?.delete(id) === true) this.#youngSize--;
    this.#old.get(agentId)?.delete(id);
  }
}
