// The test oracle of the search engine: what `ResidentIndex.search` must
// answer, computed the plain way. It keeps every current fact's analysis
// and, per term, the facts holding it; a search plans the query as the
// engine does (planTerms, planPrefix over the agent's words in code point
// order), scores every fact holding a query term or a completion, term at
// a time in the plan's order (so each sum is the very double scoreDoc
// gives, which it checks for every hit), and keeps the k best, ties
// newest (highest id) first. Nothing of the engine's own data structures
// is used, so the two agree only if the engine is right.
import {
  type AnalysedQuery,
  type Completion,
  type DocTerms,
  type Hit,
  type IndexFilter,
  MAX_PREFIX_SCAN,
  PREFIX_WEIGHT,
  type QueryModel,
  compareCodePoints,
  planPrefix,
  planTerms,
  saturation,
  scoreDoc,
} from '@memoryd/daemon/search';

interface Postings {
  facts: number[];
  frequencies: number[];
}

/** The brute-force reference for an agent's index: add, remove, search. */
export class ReferenceIndex {
  readonly #ids: string[] = [];
  readonly #docs: Array<DocTerms | undefined> = [];
  /** Each fact's length by slot, -1 once removed. */
  readonly #lengths: number[] = [];
  readonly #slotOf = new Map<string, number>();
  readonly #postings = new Map<string, Postings>();
  readonly #df = new Map<string, number>();
  readonly #words = new Map<string, Completion>();
  #facts = 0;
  #length = 0;

  /** Current facts. */
  get facts(): number {
    return this.#facts;
  }

  /** Adds a current fact; false if it is one already. */
  add(id: string, doc: DocTerms): boolean {
    if (this.#slotOf.has(id)) return false;
    const slot = this.#ids.length;
    this.#ids.push(id);
    this.#docs.push(doc);
    this.#lengths.push(doc.length);
    this.#slotOf.set(id, slot);
    this.#facts++;
    this.#length += doc.length;
    for (const [term, f] of doc.terms) {
      let p = this.#postings.get(term);
      if (p === undefined) this.#postings.set(term, (p = { facts: [], frequencies: [] }));
      p.facts.push(slot);
      p.frequencies.push(f);
      this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
    }
    for (const [surface, { term }] of doc.surfaces) {
      const w = this.#words.get(surface);
      if (w === undefined) this.#words.set(surface, { term, count: 1 });
      else w.count++;
    }
    return true;
  }

  /** Removes a current fact; false if it is not one. */
  remove(id: string): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    const doc = this.#docs[slot]!;
    this.#slotOf.delete(id);
    this.#docs[slot] = undefined;
    this.#lengths[slot] = -1;
    this.#facts--;
    this.#length -= doc.length;
    for (const term of doc.terms.keys()) this.#df.set(term, this.#df.get(term)! - 1);
    for (const surface of doc.surfaces.keys()) {
      const w = this.#words.get(surface)!;
      if (--w.count === 0) this.#words.delete(surface);
    }
    return true;
  }

  /** The agent's words starting with `prefix`, the first MAX_PREFIX_SCAN in code point order. */
  complete(prefix: string): Completion[] {
    const words = [...this.#words.keys()].filter((w) => w.startsWith(prefix)).sort(compareCodePoints);
    return words.slice(0, MAX_PREFIX_SCAN).map((w) => ({ ...this.#words.get(w)! }));
  }

  /** Whether a current fact passes a filter: every tag among its keys, its time in [since, until). */
  passes(id: string, filter: IndexFilter): boolean {
    const slot = this.#slotOf.get(id);
    const doc = slot === undefined ? undefined : this.#docs[slot];
    if (doc === undefined) return false;
    if (filter.since !== undefined && doc.createdAt < filter.since) return false;
    if (filter.until !== undefined && doc.createdAt >= filter.until) return false;
    return (filter.tags ?? []).every((t) => doc.tagKeys.includes(t));
  }

  /** Each tag key of the current facts, and how many carry it. */
  tagCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const doc of this.#docs) if (doc !== undefined) for (const t of doc.tagKeys) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
  }

  /**
   * The k best current facts for the query, best first, ties newest first;
   * with a filter, the k best of those that pass it (scored over all).
   */
  search(query: AnalysedQuery, k: number, filter?: IndexFilter): Hit[] {
    const plan = planTerms(query, this.#facts, this.#length, (t) => this.#df.get(t) ?? 0);
    if (plan === undefined) return [];
    const prefix = query.prefix === undefined ? undefined : planPrefix(plan, query, this.#facts, this.complete(query.prefix.surface));
    const { model } = plan;
    this.#begin();
    for (const { term, idf } of model.terms) {
      const p = this.#postings.get(term);
      if (p !== undefined) for (let i = 0; i < p.facts.length; i++) this.#add(p.facts[i]!, idf, p.frequencies[i]!, model.avgLength);
    }
    if (prefix !== undefined) this.#addPrefix(prefix.terms, model);
    const hits = this.#best(k, filter === undefined ? undefined : (slot) => this.passes(this.#ids[slot]!, filter));
    for (const h of hits) {
      const again = scoreDoc(this.#docs[this.#slotOf.get(h.id)!]!, model);
      if (again !== h.score) throw new Error(`the reference disagrees with scoreDoc on ${h.id}: ${h.score} against ${again}`);
    }
    return hits;
  }

  // Per-fact sums of one search, each starting at 0 when first added to.
  #sums = new Float64Array(0);
  #stamps = new Uint32Array(0);
  #epoch = 0;
  #touched = new Uint32Array(0);
  #touchedCount = 0;

  #begin(): void {
    if (this.#sums.length < this.#ids.length) {
      this.#sums = new Float64Array(2 * this.#ids.length);
      this.#stamps = new Uint32Array(2 * this.#ids.length);
      this.#touched = new Uint32Array(2 * this.#ids.length);
    }
    this.#epoch++;
    this.#touchedCount = 0;
  }

  /** Adds `weight × saturation(f, its length)` to a current fact's sum. */
  #add(slot: number, weight: number, f: number, avg: number): void {
    const length = this.#lengths[slot]!;
    if (length < 0) return;
    if (this.#stamps[slot] !== this.#epoch) {
      this.#stamps[slot] = this.#epoch;
      this.#sums[slot] = 0;
      this.#touched[this.#touchedCount++] = slot;
    }
    this.#sums[slot]! += weight * saturation(f, length, avg);
  }

  /** Adds the prefix's part: each fact not holding the word as typed scores by its most frequent completion. */
  #addPrefix(terms: readonly string[], model: QueryModel): void {
    const best = new Map<number, number>();
    for (const term of terms) {
      const p = this.#postings.get(term);
      if (p === undefined) continue;
      for (let i = 0; i < p.facts.length; i++) {
        const slot = p.facts[i]!;
        const doc = this.#docs[slot];
        if (doc === undefined || doc.terms.has(model.prefix!.term)) continue;
        const f = p.frequencies[i]!;
        if (f > (best.get(slot) ?? 0)) best.set(slot, f);
      }
    }
    for (const [slot, f] of best) this.#add(slot, PREFIX_WEIGHT * model.prefix!.idf, f, model.avgLength);
  }

  /** The k best of the scored facts (scores above 0), best first, ties by the higher id. */
  #best(k: number, passes?: (slot: number) => boolean): Hit[] {
    const worse = (a: Hit, b: Hit) => (a.score !== b.score ? a.score < b.score : a.id < b.id);
    // A min-heap of the k best so far, the worst at its root.
    const heap: Hit[] = [];
    const sift = (at: number) => {
      for (;;) {
        const l = 2 * at + 1;
        const r = l + 1;
        let m = at;
        if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
        if (m === at) return;
        [heap[m], heap[at]] = [heap[at]!, heap[m]!];
        at = m;
      }
    };
    for (let i = 0; i < this.#touchedCount; i++) {
      const slot = this.#touched[i]!;
      const score = this.#sums[slot]!;
      if (!(score > 0) || k <= 0 || (passes !== undefined && !passes(slot))) continue;
      const hit = { id: this.#ids[slot]!, score };
      if (heap.length < k) {
        heap.push(hit);
        for (let at = heap.length - 1; at > 0 && worse(heap[at]!, heap[(at - 1) >> 1]!); at = (at - 1) >> 1) {
          [heap[at], heap[(at - 1) >> 1]] = [heap[(at - 1) >> 1]!, heap[at]!];
        }
      } else if (worse(heap[0]!, hit)) {
        heap[0] = hit;
        sift(0);
      }
    }
    return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  }
}
