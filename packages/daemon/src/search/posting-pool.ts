import type { IndexSnapshot } from './index-image.js';
import { atLeast } from './typed-arrays.js';

/**
 * Every term's postings of one in-memory index, in one typed array: a
 * term's list is a run of (fact ordinal, weighted frequency) pairs at
 * `pairs[2 * start[list]]`, `size[list]` of them, room for `cap[list]`.
 * One array and a few numbers per term, where an array per term cost some
 * 200 bytes each (an index holds about one term per fact).
 *
 * A list that outgrows its room moves to the end with twice the room; the
 * space it leaves is reclaimed when the garbage outweighs the lists.
 */
export class PostingPool {
  pairs: Uint32Array = new Uint32Array(2 * 1024);
  start: Uint32Array = new Uint32Array(64);
  size: Uint32Array = new Uint32Array(64);
  cap: Uint32Array = new Uint32Array(64);
  /** Live postings of the list: the term's df (size also counts removed facts' pairs). */
  df: Uint32Array = new Uint32Array(64);
  readonly #ids = new Map<string, number>();
  readonly #free: number[] = [];
  #lists = 0;
  /** Pairs of the pool in use or left as garbage. */
  #end = 0;
  #garbage = 0;
  #used = 0;
  readonly #collectAfter: number;

  /** `collectAfter`: garbage pairs tolerated before packing (when they also outweigh the lists). */
  constructor(collectAfter = 65_536) {
    this.#collectAfter = collectAfter;
  }

  /** The pool as data (its arrays cut to what they hold, not copied). */
  snapshot(): IndexSnapshot {
    return {
      meta: { terms: [...this.#ids], free: this.#free, lists: this.#lists, end: this.#end, garbage: this.#garbage, used: this.#used },
      arrays: {
        pairs: this.pairs.subarray(0, 2 * this.#end),
        start: this.start.subarray(0, this.#lists),
        size: this.size.subarray(0, this.#lists),
        cap: this.cap.subarray(0, this.#lists),
        df: this.df.subarray(0, this.#lists),
      },
    };
  }

  /** A pool from {@link snapshot}'s data. */
  static restore(s: IndexSnapshot): PostingPool {
    const pool = new PostingPool();
    const m = s.meta as { terms: Array<[string, number]>; free: number[]; lists: number; end: number; garbage: number; used: number };
    const u32 = (n: number) => new Uint32Array(n);
    pool.pairs = atLeast(s.arrays['pairs'] as Uint32Array, 2 * 1024, u32);
    pool.start = atLeast(s.arrays['start'] as Uint32Array, 64, u32);
    pool.size = atLeast(s.arrays['size'] as Uint32Array, 64, u32);
    pool.cap = atLeast(s.arrays['cap'] as Uint32Array, 64, u32);
    pool.df = atLeast(s.arrays['df'] as Uint32Array, 64, u32);
    for (const [term, id] of m.terms) pool.#ids.set(term, id);
    pool.#free.push(...m.free);
    pool.#lists = m.lists;
    pool.#end = m.end;
    pool.#garbage = m.garbage;
    pool.#used = m.used;
    return pool;
  }

  /** Bytes the pool's arrays take (room included). */
  get byteSize(): number {
    return this.pairs.byteLength + this.start.byteLength + this.size.byteLength + this.cap.byteLength + this.df.byteLength;
  }

  /** Pairs held (live or of removed facts). */
  get used(): number {
    return this.#used;
  }

  /**
   * Fills empty lists at once from `n` staged triples (list, fact ordinal,
   * frequency): each list gets exactly the room it needs, in one pool
   * allocation, where appending one by one would move every list as it
   * grows and leave half the pool as garbage.
   */
  fill(triples: Uint32Array, n: number): void {
    const counts = new Uint32Array(this.#lists);
    for (let i = 0; i < n; i++) counts[triples[3 * i]!]!++;
    let end = this.#end;
    for (let id = 0; id < this.#lists; id++) {
      if (counts[id] === 0) continue;
      if (this.size[id] !== 0) throw new Error('PostingPool.fill: the lists must be empty');
      this.start[id] = end;
      this.cap[id] = counts[id]!;
      end += counts[id]!;
    }
    if (2 * end > this.pairs.length) this.#growPool(2 * end);
    const pairs = this.pairs;
    for (let i = 0; i < n; i++) {
      const id = triples[3 * i]!;
      const at = 2 * (this.start[id]! + this.size[id]!++);
      pairs[at] = triples[3 * i + 1]!;
      pairs[at + 1] = triples[3 * i + 2]!;
    }
    this.#end = end;
    this.#used += n;
  }

  /** The list of `term`, or -1. */
  list(term: string): number {
    return this.#ids.get(term) ?? -1;
  }

  /** The list of `term`, created empty if it has none. */
  listFor(term: string): number {
    let id = this.#ids.get(term);
    if (id !== undefined) return id;
    id = this.#free.pop() ?? this.#lists++;
    if (id >= this.start.length) this.#growLists(2 * this.start.length);
    this.start[id] = this.#end;
    this.size[id] = 0;
    this.cap[id] = 0;
    this.df[id] = 0;
    this.#ids.set(term, id);
    return id;
  }

  /** Adds a pair to a list. */
  append(id: number, ord: number, frequency: number): void {
    const size = this.size[id]!;
    if (size === this.cap[id]) this.#move(id, Math.max(2, 2 * size));
    const at = 2 * (this.start[id]! + size);
    this.pairs[at] = ord;
    this.pairs[at + 1] = frequency;
    this.size[id] = size + 1;
    this.#used++;
  }

  /** Empties a list, keeping its room (its pairs were sealed into blocks). */
  clear(id: number): void {
    this.#used -= this.size[id]!;
    this.size[id] = 0;
  }

  /** Drops a term's list (its df reached 0). */
  delete(term: string): void {
    const id = this.#ids.get(term);
    if (id === undefined) return;
    this.#ids.delete(term);
    this.#garbage += this.cap[id]!;
    this.#used -= this.size[id]!;
    this.size[id] = 0;
    this.cap[id] = 0;
    this.#free.push(id);
    this.#collectIfWasteful();
  }

  /**
   * Keeps, in one list, the pairs whose fact `keep` approves, renumbered
   * by `renumber` when given; returns how many pairs it dropped.
   */
  filter(id: number, keep: Uint8Array, renumber?: Uint32Array): number {
    const pairs = this.pairs;
    const base = 2 * this.start[id]!;
    const size = this.size[id]!;
    let out = 0;
    for (let i = 0; i < size; i++) {
      const ord = pairs[base + 2 * i]!;
      if (keep[ord] === 0) continue;
      pairs[base + 2 * out] = renumber === undefined ? ord : renumber[ord]!;
      pairs[base + 2 * out + 1] = pairs[base + 2 * i + 1]!;
      out++;
    }
    this.size[id] = out;
    this.#used -= size - out;
    return size - out;
  }

  /** Every list. */
  ids(): IterableIterator<number> {
    return this.#ids.values();
  }

  /** Rewrites the pool with the lists packed, each with room for what it holds. */
  pack(): void {
    const pairs = new Uint32Array(Math.max(2 * 1024, 2 * this.#used + 2 * 1024));
    let end = 0;
    for (const id of this.#ids.values()) {
      const size = this.size[id]!;
      pairs.set(this.pairs.subarray(2 * this.start[id]!, 2 * (this.start[id]! + size)), 2 * end);
      this.start[id] = end;
      this.cap[id] = size;
      end += size;
    }
    this.pairs = pairs;
    this.#end = end;
    this.#garbage = 0;
  }

  /** Gives a list room for `room` pairs at the pool's end, copying what it holds. */
  #move(id: number, room: number): void {
    this.#collectIfWasteful();
    const start = this.start[id]!;
    const size = this.size[id]!;
    // The last list grows in place.
    const last = start + this.cap[id]! === this.#end;
    const to = last ? start : this.#end;
    const end = to + room;
    if (2 * end > this.pairs.length) this.#growPool(2 * end);
    if (!last) {
      this.pairs.copyWithin(2 * to, 2 * start, 2 * (start + size));
      this.#garbage += this.cap[id]!;
      this.start[id] = to;
    }
    this.cap[id] = room;
    this.#end = end;
  }

  #collectIfWasteful(): void {
    if (this.#garbage > this.#collectAfter && this.#garbage > this.#end - this.#garbage) this.pack();
  }

  #growPool(need: number): void {
    const pairs = new Uint32Array(this.#end === 0 ? need : Math.max(need, Math.ceil(this.pairs.length * 1.5)));
    pairs.set(this.pairs.subarray(0, 2 * this.#end));
    this.pairs = pairs;
  }

  #growLists(n: number): void {
    const u32 = (k: number) => new Uint32Array(k);
    this.start = atLeast(this.start, n, u32);
    this.size = atLeast(this.size, n, u32);
    this.cap = atLeast(this.cap, n, u32);
    this.df = atLeast(this.df, n, u32);
  }
}
