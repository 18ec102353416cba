import type { StoredFact } from './codec.js';

/**
 * Facts recently returned by searches, decoded, least recently used out.
 * A search reads the facts it returns one by one (`getSync`, ~3 µs warm,
 * ~10-15 µs with the caches cold between requests), and agents search for
 * the same facts again and again. A fact id names one immutable version,
 * so an entry never goes stale; one that stops being current is dropped
 * when its change commits (it could not be returned anyway: the index no
 * longer lists it).
 */
export class FactCache {
  readonly #facts = new Map<string, StoredFact>();

  constructor(readonly maxFacts: number) {}

  get(agentId: string, id: string): StoredFact | undefined {
    const key = `${agentId}\x00${id}`;
    const fact = this.#facts.get(key);
    if (fact !== undefined) {
      this.#facts.delete(key);
      this.#facts.set(key, fact);
    }
    return fact;
  }

  set(agentId: string, fact: StoredFact): void {
    if (this.maxFacts === 0) return;
    this.#facts.set(`${agentId}\x00${fact.id}`, fact);
    if (this.#facts.size > this.maxFacts) this.#facts.delete(this.#facts.keys().next().value!);
  }

  /** A fact stopped being current. */
  delete(agentId: string, id: string): void {
    this.#facts.delete(`${agentId}\x00${id}`);
  }
}
