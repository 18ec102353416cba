import type { AnalysedQuery } from './analyze.js';
import { Dictionary } from './dictionary.js';
import type { DocTerms } from './doc-terms.js';
import { FactIds } from './fact-ids.js';
import { type FilterMask, type IndexFilter, filterMask } from './filter-mask.js';
import type { IndexSnapshot } from './index-image.js';
import { maxScore } from './max-score.js';
import { PostingLists } from './posting-lists.js';
import { type Completion, planPrefix, planTerms } from './query-plan.js';
import { idf } from './bm25.js';
import type { FactView } from './top-k.js';
import { TagLists } from './tag-lists.js';
import { atLeast } from './typed-arrays.js';
import type { Slot } from './window-search.js';

export { compareCodePoints } from './dictionary.js';

/** A fact a search found, with its score. */
export interface Hit {
  id: string;
  score: number;
}

/**
 * What one distinct word costs in memory beyond the arrays: its strings in
 * two maps and the sorted list, its entry objects (some 250 bytes, measured
 * on the sentence corpus: 101 agents, some 900 MB, ADR 0019).
 */
const WORD_BYTES = 250;

/** `array` if it has room for `need`, else a copy with at least twice its room. */
function grown<T extends Uint32Array | Uint8Array>(array: T, need: number, make: (n: number) => T): T {
  return need <= array.length ? array : atLeast(array, Math.max(need, array.length * 2), make);
}

/**
 * One agent's inverted index in memory, the one way its searches are
 * answered: kept equal to its current facts by every commit
 * (store/level/search-indexes.ts), saved as an image and restored from one
 * ({@link snapshot}, {@link restore}).
 *
 * Facts get ordinals in the order they arrive; a removed fact keeps its
 * ordinal (marked dead, its postings skipped) until enough are dead that
 * the whole index is renumbered. Its parts: the facts' ids
 * (search/fact-ids.ts), lengths and liveness here; the posting lists
 * (search/posting-lists.ts); the words prefixes complete against
 * (search/dictionary.ts). {@link search} ranks by MaxScore over windows
 * (search/max-score.ts), summing each fact's parts in the query's term
 * order, exactly as scoreDoc does, so its scores are bit for bit brute
 * force's.
 */
export class ResidentIndex {
  /** Ordinals handed out (live and dead). */
  #count = 0;
  #lengths: Uint32Array = new Uint32Array(64);
  #alive: Uint8Array = new Uint8Array(64);
  #ids = new FactIds();
  /** Each ordinal's createdAt, in milliseconds (search/filter-mask.ts). */
  #created: Float64Array = new Float64Array(64);
  /** Whether createdAt never falls as ordinals rise. */
  #timeOrdered = true;
  #tags = new TagLists();
  /** Whether ordinals follow id order (a higher ordinal is a newer fact): ties then compare ordinals. */
  #ordered = true;
  #lists = new PostingLists();
  #words = new Dictionary();
  #facts = 0;
  #length = 0;
  #dead = 0;

  /**
   * The index as data (search/index-image.ts): what a worker hands back
   * and an image file holds. Its arrays are views of the index's (cut to
   * what they hold, not copied): use it before the next change.
   */
  snapshot(): IndexSnapshot {
    const lists = this.#lists.snapshot();
    const tags = this.#tags.snapshot();
    const n = this.#count;
    const arrays: IndexSnapshot['arrays'] = {
      lengths: this.#lengths.subarray(0, n),
      alive: this.#alive.subarray(0, n),
      idParts: this.#ids.parts.subarray(0, 3 * n),
      slots: this.#ids.slots,
      created: this.#created.subarray(0, n),
      tagOrds: tags.ords,
      ...lists.arrays,
    };
    const meta = lists.meta as { pool: IndexSnapshot['meta']; blocks: IndexSnapshot['meta'] };
    return {
      meta: {
        count: n,
        ordered: this.#ordered,
        timeOrdered: this.#timeOrdered,
        facts: this.#facts,
        length: this.#length,
        dead: this.#dead,
        words: this.#words.entries(),
        tags: tags.meta,
        pool: meta.pool,
        blocks: meta.blocks,
      },
      arrays,
    };
  }

  /** An index from {@link snapshot}'s data (its arrays are used as they are). */
  static restore(s: IndexSnapshot): ResidentIndex {
    const index = new ResidentIndex();
    const m = s.meta as {
      count: number;
      ordered: boolean;
      timeOrdered: boolean;
      facts: number;
      length: number;
      dead: number;
      words: Array<[string, number, string?]>;
      tags: Array<[string, number, number]>;
      pool: IndexSnapshot['meta'];
      blocks: IndexSnapshot['meta'];
    };
    index.#lists = PostingLists.restore({ meta: { pool: m.pool, blocks: m.blocks }, arrays: s.arrays });
    const n = m.count;
    const room = Math.max(64, n);
    index.#lengths = atLeast(s.arrays['lengths'] as Uint32Array, room, (k) => new Uint32Array(k));
    index.#alive = atLeast(s.arrays['alive'] as Uint8Array, room, (k) => new Uint8Array(k));
    index.#ids = new FactIds(atLeast(s.arrays['idParts'] as Float64Array, 3 * room, (k) => new Float64Array(k)), s.arrays['slots'] as Int32Array);
    index.#created = atLeast(s.arrays['created'] as Float64Array, room, (k) => new Float64Array(k));
    index.#timeOrdered = m.timeOrdered;
    index.#tags = TagLists.restore(m.tags, s.arrays['tagOrds'] as Uint32Array);
    index.#count = n;
    index.#ordered = m.ordered;
    index.#facts = m.facts;
    index.#length = m.length;
    index.#dead = m.dead;
    index.#words = Dictionary.restore(m.words);
    return index;
  }

  /** Current facts. */
  get facts(): number {
    return this.#facts;
  }

  /** Their summed length. */
  get length(): number {
    return this.#length;
  }

  /** Postings held, live or not. */
  get postings(): number {
    return this.#lists.postings;
  }

  /** What the postings take, in bytes: the sealed blocks, and 8 a posting not yet sealed. */
  get postingBytes(): number {
    return this.#lists.postingBytes;
  }

  /**
   * About what the index takes in memory, in bytes: its typed arrays (room
   * included), and {@link WORD_BYTES} for each distinct word (its strings,
   * map entries and objects dominate an agent with a large vocabulary).
   */
  get memoryBytes(): number {
    const facts = this.#lengths.byteLength + this.#alive.byteLength + this.#ids.parts.byteLength + this.#ids.slots.byteLength + this.#created.byteLength;
    return facts + this.#lists.memoryBytes + this.#tags.memoryBytes + WORD_BYTES * this.#words.size;
  }

  /** The number of current facts holding `term`. */
  df(term: string): number {
    return this.#lists.df(term);
  }

  /** Whether `id` is a current fact here. */
  has(id: string): boolean {
    return this.#ids.find(id, this.#alive) >= 0;
  }

  /**
   * The ids of up to `count` current facts spread evenly over the
   * ordinals (the first current one at or after each of `count` evenly
   * spaced ordinals), oldest first, without repeats.
   */
  spreadIds(count: number): string[] {
    const ids: string[] = [];
    let last = -1;
    for (let i = 0; i < count; i++) {
      let ord = Math.max(last + 1, Math.floor((i * this.#count) / count));
      while (ord < this.#count && this.#alive[ord] === 0) ord++;
      if (ord >= this.#count) break;
      ids.push(this.#ids.text(ord));
      last = ord;
    }
    return ids;
  }

  /**
   * Starts a load of about `postings` postings: the adds until
   * {@link endLoad} stage their postings and defer sorting the words.
   */
  beginLoad(postings = 0): void {
    this.#lists.beginLoad(postings);
  }

  /** Ends a load: fills and seals the lists at once, sorts the words once. */
  endLoad(): void {
    this.#lists.endLoad(this.#lengths);
    this.#words.merge();
    if (this.#dead > 0) this.#renumber();
  }

  #newOrdinal(id: string, length: number, createdAt: number): number {
    const ord = this.#count;
    const need = ord + 1;
    if (need > this.#alive.length) {
      this.#lengths = grown(this.#lengths, need, (n) => new Uint32Array(n));
      this.#alive = grown(this.#alive, need, (n) => new Uint8Array(n));
      this.#created = atLeast(this.#created, this.#alive.length, (n) => new Float64Array(n));
      this.#ids.ensure(this.#alive.length);
    }
    this.#created[ord] = createdAt;
    if (ord > 0 && this.#timeOrdered && !(this.#created[ord - 1]! <= createdAt)) this.#timeOrdered = false;
    this.#count++;
    this.#ids.set(ord, id, this.#count);
    if (ord > 0 && this.#ordered && !this.#ids.older(ord - 1, ord)) this.#ordered = false;
    this.#lengths[ord] = length;
    this.#alive[ord] = 1;
    this.#facts++;
    this.#length += length;
    return ord;
  }

  /** Indexes a fact that became current; false if it already is (nothing changes). */
  add(id: string, doc: DocTerms): boolean {
    if (this.has(id)) return false;
    const ord = this.#newOrdinal(id, doc.length, doc.createdAt);
    this.#tags.add(ord, doc.tagKeys);
    for (const [term, frequency] of doc.terms) this.#lists.post(term, ord, frequency, doc.length, this.#lengths);
    const loading = this.#lists.loading;
    for (const [surface, { term }] of doc.surfaces) this.#words.add(surface, term, loading);
    return true;
  }

  /** Removes a fact that stopped being current; false if it is not here (nothing changes). */
  remove(id: string, doc: DocTerms): boolean {
    if (this.#lists.loading) throw new Error('ResidentIndex.remove during a load: replay removals after endLoad');
    const ord = this.#ids.find(id, this.#alive);
    if (ord < 0) return false;
    this.#alive[ord] = 0;
    this.#facts--;
    this.#length -= this.#lengths[ord]!;
    this.#dead++;
    this.#tags.remove(doc.tagKeys);
    for (const [term, frequency] of doc.terms) this.#lists.unpost(term, frequency, this.#alive, this.#lengths);
    for (const surface of doc.surfaces.keys()) this.#words.remove(surface);
    if (this.#dead > 1024 && this.#dead > this.#facts) this.#renumber();
    return true;
  }

  /**
   * Gives the live facts ordinals 0..n-1 again in id order (oldest first),
   * dropping every dead pair: a search meets tied facts newest first when
   * it walks the ordinals down, so ties cost no heap work.
   */
  #renumber(): void {
    const live: number[] = [];
    for (let ord = 0; ord < this.#count; ord++) if (this.#alive[ord] !== 0) live.push(ord);
    live.sort((a, b) => (this.#ids.older(a, b) ? -1 : this.#ids.older(b, a) ? 1 : 0));
    const map = new Uint32Array(this.#count);
    const lengths = new Uint32Array(Math.max(64, live.length));
    const created = new Float64Array(lengths.length);
    let timeOrdered = true;
    live.forEach((ord, to) => {
      map[ord] = to;
      lengths[to] = this.#lengths[ord]!;
      created[to] = this.#created[ord]!;
      if (to > 0 && !(created[to - 1]! <= created[to]!)) timeOrdered = false;
    });
    this.#lists.renumber(this.#alive, map, lengths);
    this.#tags.renumber(this.#alive, map);
    this.#created = created;
    this.#timeOrdered = timeOrdered;
    this.#ids = this.#ids.renumbered(live, lengths.length);
    this.#count = live.length;
    this.#lengths = lengths;
    this.#alive = new Uint8Array(lengths.length).fill(1, 0, live.length);
    this.#dead = 0;
    this.#ordered = true;
  }

  /**
   * The first MAX_PREFIX_SCAN dictionary words starting with `prefix` in
   * byte order, as a LevelDB range read of the dictionary gives them.
   */
  complete(prefix: string): readonly Completion[] {
    return this.#words.complete(prefix);
  }

  /**
   * The BM25 a fact of average length would get by holding each of the
   * query's words once: the sum of their idf (a word no fact holds counts
   * as the rarest). A fused search divides BM25 by it to tell a match of
   * the whole query from one of a single common word (embed/fusion.ts).
   */
  fullMatch(query: AnalysedQuery): number {
    const n = this.#facts;
    if (n === 0) return 0;
    let sum = 0;
    for (const term of query.terms) sum += idf(n, this.df(term));
    return sum;
  }

  /**
   * Whether `id` is a current fact here that passes `filter`: read from
   * the index as it is now, so a fused search may ask long after the
   * lexical search it joins.
   */
  passes(id: string, filter: IndexFilter): boolean {
    const ord = this.#ids.find(id, this.#alive);
    if (ord < 0) return false;
    const at = this.#created[ord]!;
    if ((filter.since !== undefined && at < filter.since) || (filter.until !== undefined && !(at < filter.until))) return false;
    for (const key of filter.tags ?? []) {
      const list = this.#tags.get(key);
      if (list === undefined || !list.holds(ord)) return false;
    }
    return true;
  }

  /**
   * The ids of up to `n` current facts past `afterId` (all when
   * undefined) that pass `filter`, in id order: ids above it, ascending,
   * or with `order` 'newest' ids below it, descending. A filtered list's
   * page, read from the mask a search would use. Undefined when ordinals
   * do not follow ids here (an import brought older ids in after newer
   * ones, and no renumbering has put them back in order yet): the caller
   * reads the facts instead.
   */
  listIds(filter: IndexFilter, afterId: string | undefined, n: number, order: 'oldest' | 'newest' = 'oldest'): string[] | undefined {
    if (!this.#ordered) return undefined;
    const { mask, range } = this.#passing(filter);
    if (range === undefined) return [];
    return order === 'newest' ? this.#idsDown(mask, range, afterId, n) : this.#idsUp(mask, range, afterId, n);
  }

  /** Up to `n` ids the mask passes, from the first ordinal whose id is above `afterId` upwards. */
  #idsUp(mask: Uint8Array, range: { lo: number; hi: number }, afterId: string | undefined, n: number): string[] {
    const ids: string[] = [];
    const from = afterId === undefined ? range.lo : this.#firstOrdinal(range, (id) => id > afterId);
    for (let ord = from; ord <= range.hi && ids.length < n; ord++) if (mask[ord] !== 0) ids.push(this.#ids.text(ord));
    return ids;
  }

  /** Up to `n` ids the mask passes, from the last ordinal whose id is below `beforeId` downwards. */
  #idsDown(mask: Uint8Array, range: { lo: number; hi: number }, beforeId: string | undefined, n: number): string[] {
    const ids: string[] = [];
    const from = beforeId === undefined ? range.hi : this.#firstOrdinal(range, (id) => id >= beforeId) - 1;
    for (let ord = from; ord >= range.lo && ids.length < n; ord--) if (mask[ord] !== 0) ids.push(this.#ids.text(ord));
    return ids;
  }

  /**
   * The first ordinal of `range` whose id meets `reached` (range.hi + 1
   * when none does), by binary search: ids rise with ordinals here, so
   * once one meets it every later one does.
   */
  #firstOrdinal(range: { lo: number; hi: number }, reached: (id: string) => boolean): number {
    let lo = range.lo;
    let hi = range.hi + 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (reached(this.#ids.text(mid))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The mask of the facts that pass `filter`, and the ordinals it spans (search/filter-mask.ts). */
  #passing(filter: IndexFilter): FilterMask {
    return filterMask({ count: this.#count, alive: this.#alive, created: this.#created, timeOrdered: this.#timeOrdered, tags: this.#tags }, filter);
  }

  /** The tags of the current facts (their keys, search/normal-form.ts) with how many carry each. */
  tagCounts(): Array<{ tag: string; count: number }> {
    return this.#tags.counts();
  }

  /**
   * The `k` best current facts for the query, best first, ties newest
   * first: the same facts and scores as planning the query with
   * query-plan.ts and ranking every fact by scoreDoc, found by MaxScore
   * with block bounds (search/max-score.ts), which skips most postings of
   * common words. With a filter, the `k` best of the facts that pass it,
   * scored as without (the agent's statistics, not the filtered ones'):
   * the search reads a mask of them instead of the liveness, within the
   * ordinals they span (search/filter-mask.ts).
   */
  search(query: AnalysedQuery, k: number, filter?: IndexFilter): Hit[] {
    const n = this.#facts;
    const plan = planTerms(query, n, this.#length, (t) => this.df(t));
    if (plan === undefined) return [];
    let alive = this.#alive;
    let range: { lo: number; hi: number } | undefined;
    if (filter !== undefined) {
      const passing = this.#passing(filter);
      if (passing.range === undefined) return [];
      ({ mask: alive, range } = passing);
    }
    const prefix = query.prefix === undefined ? undefined : planPrefix(plan, query, n, this.complete(query.prefix.surface));
    const avg = plan.model.avgLength;
    const slots: Slot[] = [];
    let own = -1;
    for (const { term, idf } of plan.model.terms) {
      if (plan.own?.term === term) own = slots.length;
      slots.push(this.#lists.termSlot(term, idf, avg, this.#lengths));
    }
    let prefixSlot = -1;
    if (prefix !== undefined) {
      prefixSlot = slots.length;
      slots.push(this.#lists.prefixSlot(prefix.terms, prefix.listWeight, avg, this.#lengths));
    }
    const view: FactView = { lengths: this.#lengths, ordered: this.#ordered, older: (a, b) => (this.#ordered ? a < b : this.#ids.older(a, b)) };
    return maxScore(slots, own, prefixSlot, k, avg, view, alive, range).map((h) => ({ id: this.#ids.text(h.ord), score: h.score }));
  }
}
