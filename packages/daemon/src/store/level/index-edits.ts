import { type DocTerms, docTerms } from '../../search/doc-terms.js';
import type { StoredFact } from './codec.js';
import type { WriteBatch } from './write-batch.js';

/**
 * The search side of one change: a fact entering or leaving an agent's
 * current set moves the agent's counters (facts, summed length) in the
 * change's batch, and is recorded for the agent's in-memory index, which
 * the commit updates once the batch is written (store/level/search-indexes.ts).
 * The fact is analysed here, once (search/doc-terms.ts).
 */
export class IndexEdits {
  readonly #batch: WriteBatch;

  constructor(batch: WriteBatch) {
    this.#batch = batch;
  }

  /** Indexes a fact that becomes current, and counts it in its agent's statistics. */
  add(agentId: string, fact: StoredFact): void {
    this.#apply(agentId, fact, 1);
  }

  /** {@link add} for a fact analysed already (fact-prep.ts): `doc` is docTerms of its content and tags. */
  addAnalysed(agentId: string, id: string, doc: DocTerms): void {
    this.#batch.count(agentId, 1, 0, doc.length);
    this.#batch.indexed(agentId, { id, doc, sign: 1 });
  }

  /** Removes a fact that stops being current from the index and the statistics. */
  remove(agentId: string, fact: StoredFact): void {
    this.#apply(agentId, fact, -1);
  }

  #apply(agentId: string, fact: StoredFact, sign: 1 | -1): void {
    const doc = docTerms(fact);
    this.#batch.count(agentId, sign, 0, sign * doc.length);
    this.#batch.indexed(agentId, { id: fact.id, doc, sign });
  }
}
