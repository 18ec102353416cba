import { BLOCK, type PostingBlocks } from './posting-blocks.js';
import type { PostingPool } from './posting-pool.js';
import { saturation } from './bm25.js';
import { partsOf } from './part-table.js';

/**
 * Where a read of postings puts what it finds ({@link WindowReader.read}),
 * one of three ways:
 * - `best` false and `parts` null (accumulate): each part added to
 *   `scores` by offset, the offset listed in `offsets` (when `listed` is
 *   given) once its sum is `floor` or more;
 * - `parts` given (collect): each posting whose part is above `floor`
 *   listed in `offsets`, its part in `parts`;
 * - `best` true (keep the best): `scores` keeps the best part of each
 *   offset (0: none yet), the offset listed in `offsets` when it gets its
 *   first (a prefix's completions: a fact scores by its best one).
 * One object a search per way of reading, its floor set for each window.
 */
export interface ReadInto {
  scores: Float64Array | null;
  listed: Uint8Array | null;
  offsets: Uint32Array;
  floor: number;
  parts: Float64Array | null;
  best: boolean;
}

/**
 * Which parts of a list a window's scoring may pass over (max-score.ts):
 * a part whose bound, with the query's other parts at their bounds,
 * cannot lift any fact of its ordinal range into the top k.
 */
export interface BlockGate {
  /** Whether a part of the list bounded by `bound` can be passed over. */
  skips(bound: number): boolean;
  /** A range of ordinals passed over: no fact in it can enter, whatever else it holds. */
  passed(lo: number, hi: number): void;
}

/**
 * #gather's output, shared by every reader: each caller reads it at once,
 * before any other reader gathers (searches run one at a time): offsets
 * from the window's base, frequencies, and (partsOf) parts.
 */
const gathered = { at: new Uint32Array(BLOCK), f: new Uint32Array(BLOCK), v: new Float64Array(BLOCK) };

/**
 * Adds each gathered part to `scores` by offset, listing in `offsets`
 * (from `n`), when `listed` is given, each offset the first time its sum
 * is `floor` or more. Returns the new count of offsets.
 */
function addParts(count: number, { scores, listed, offsets, floor }: ReadInto, n: number): number {
  const at = gathered.at;
  const vs = gathered.v;
  const sums = scores!;
  for (let i = 0; i < count; i++) {
    const o = at[i]!;
    const sum = (sums[o]! += vs[i]!);
    if (listed !== null && sum >= floor && listed[o] === 0) {
      listed[o] = 1;
      offsets[n++] = o;
    }
  }
  return n;
}

/** Lists each gathered posting whose part is above `floor`: its offset in `offsets`, its part in `parts` (from `n`). */
function collectParts(count: number, { offsets, parts, floor }: ReadInto, n: number): number {
  const at = gathered.at;
  const vs = gathered.v;
  for (let i = 0; i < count; i++) {
    const v = vs[i]!;
    if (v > floor) {
      offsets[n] = at[i]!;
      parts![n++] = v;
    }
  }
  return n;
}

/** Keeps in `scores` each offset's best part, listing in `offsets` (from `n`) each offset at its first. */
function keepBestParts(count: number, { scores, offsets }: ReadInto, n: number): number {
  const at = gathered.at;
  const vs = gathered.v;
  const best = scores!;
  for (let i = 0; i < count; i++) {
    const o = at[i]!;
    const was = best[o]!;
    if (was === 0) offsets[n++] = o;
    if (vs[i]! > was) best[o] = vs[i]!;
  }
  return n;
}

/** What {@link WindowReader}'s #firstPart and #nextPart found. */
const NONE = 0;
const TAIL = 1;
const BLOCK_PART = 2;

/**
 * Reads one posting list by windows of fact ordinals, newest window first:
 * for a window, the bound of the blocks that overlap it (block data only,
 * nothing decoded), and on demand its live postings (their frequencies
 * set in a dense array by offset in the window, or their parts added to
 * per-fact sums), or one posting probed. A block spanning several windows
 * (a rare word's) is decoded once.
 *
 * The list is its sealed blocks (chained newest first) and its tail (the
 * newest pairs, treated as one more block above them).
 */
export class WindowReader {
  /** After {@link bound}: the postings of the blocks overlapping the window (what reading it costs). */
  count = 0;
  readonly #pool: PostingPool;
  readonly #blocks: PostingBlocks;
  readonly #list: number;
  readonly #tailBase: number;
  readonly #tailSize: number;
  /** Whether the tail may still overlap the windows to come. */
  #tail: boolean;
  /** The newest block not yet wholly above the current window. */
  #block: number;
  /** A decoded block (#decoded), made at the first decode: most readers of a search never need one. */
  #docs: Uint32Array | null = null;
  #freqs: Uint32Array | null = null;
  #decoded = -3;
  #decodedCount = 0;
  /** Where the last {@link probe} found its block (-3: not yet). */
  #probeBlock = -3;
  /** What a search's bounds are asked with: the slot's weight and the average length. */
  readonly #weight: number;
  readonly #avg: number;
  readonly #tailBound: number;

  constructor(pool: PostingPool, blocks: PostingBlocks, lengths: Uint32Array, list: number, weight: number, avg: number) {
    this.#pool = pool;
    this.#blocks = blocks;
    this.#list = list;
    this.#weight = weight;
    this.#avg = avg;
    this.#tailBase = 2 * pool.start[list]!;
    this.#tailSize = pool.size[list]!;
    // The tail's bound: the best part among its postings (at most a block's worth), the very expression a search evaluates.
    const pairs = pool.pairs;
    let tailBound = 0;
    for (let i = 0; i < this.#tailSize; i++) {
      const v = weight * saturation(pairs[this.#tailBase + 2 * i + 1]!, lengths[pairs[this.#tailBase + 2 * i]!]!, avg);
      if (v > tailBound) tailBound = v;
    }
    this.#tailBound = tailBound;
    this.#tail = this.#tailSize > 0;
    this.#block = blocks.head[list]!;
  }

  /** The newest ordinal the list holds (-1: none). */
  top(): number {
    if (this.#tailSize > 0) return this.#pool.pairs[this.#tailBase + 2 * (this.#tailSize - 1)]!;
    const head = this.#blocks.head[this.#list]!;
    return head < 0 ? -1 : this.#blocks.last[head]!;
  }

  /**
   * Moves to the window [base, hi] (below every earlier one) and returns
   * the most a posting in it scores, times the weight (0: none there).
   */
  bound(base: number, hi: number): number {
    let best = 0;
    let count = 0;
    const pairs = this.#pool.pairs;
    if (this.#tail) {
      if (pairs[this.#tailBase + 2 * (this.#tailSize - 1)]! >= base && pairs[this.#tailBase]! <= hi) {
        best = this.#tailBound;
        count += this.#tailSize;
      }
      if (pairs[this.#tailBase]! >= base) this.#tail = false;
    }
    const blocks = this.#blocks;
    // Blocks wholly above the window were passed by earlier windows.
    while (this.#block >= 0 && blocks.first[this.#block]! > hi) this.#block = blocks.prev[this.#block]!;
    for (let b = this.#block; b >= 0 && blocks.last[b]! >= base; b = blocks.prev[b]!) {
      const v = this.#blockBound(b);
      if (v > best) best = v;
      count += blocks.count[b]!;
    }
    this.count = count;
    return best;
  }

  /**
   * Writes into `into[ord - base]` the frequency of each live posting in
   * [base, hi] (the window {@link bound} moved to), keeping the larger of
   * it and what is there (a prefix's completions share one array), and
   * appends to `offsets` (from `n`) each offset it set from 0. Returns the
   * new count of offsets.
   */
  fill(base: number, hi: number, alive: Uint8Array, into: Uint32Array, offsets: Uint32Array, n: number): number {
    for (let kind = this.#firstPart(base, hi); kind !== NONE; kind = this.#nextPart(base, hi)) {
      // Read from arrays: the tail's pairs, or a block decoded once (for
      // every window it spans).
      if (kind === BLOCK_PART) this.#decodePart();
      const count = this.#gather(base, hi, alive);
      const at = gathered.at;
      const fs = gathered.f;
      for (let i = 0; i < count; i++) {
        const o = at[i]!;
        if (into[o] === 0) offsets[n++] = o;
        if (fs[i]! > into[o]!) into[o] = fs[i]!;
      }
    }
    return n;
  }

  /**
   * Reads the live postings of [base, hi] (the window {@link bound} moved
   * to), less the parts the gate passes over, each scored by its part
   * (part-table.ts: `weight × saturation(f, length, avg)`, the expression
   * scoreDoc evaluates), into `into`. Three ways, returning the new count
   * of offsets:
   *
   * - `into.best` (keep the best): keeps in `scores[ord - base]` the
   *   greater of the part and what is there, listing in `offsets` (from
   *   `n`) each offset that had 0.
   * - `into.parts` null (accumulate): adds each part to
   *   `scores[ord - base]`, listing in `offsets` (from `n`) each offset not
   *   yet in `listed` whose sum is now `floor` or more (none without
   *   `listed`).
   * - else (collect): lists, newest first, each posting whose part is above
   *   `floor`, its offset in `offsets` and its part in `parts` (from `n`).
   *
   * Blocks are decoded as they are read; a block spanning several
   * windows (a rarer word's) is decoded once, for all of them.
   */
  read(
    base: number,
    hi: number,
    alive: Uint8Array,
    table: Float64Array,
    weight: number,
    avg: number,
    lengths: Uint32Array,
    gate: BlockGate | null,
    into: ReadInto,
    n: number,
  ): number {
    for (let kind = this.#firstPart(base, hi); kind !== NONE; kind = this.#nextPart(base, hi)) {
      if (gate !== null && this.#passes(gate)) continue;
      if (kind === BLOCK_PART) this.#decodePart();
      const count = this.#gather(base, hi, alive);
      partsOf(table, weight, avg, gathered.f, gathered.at, lengths, base, count, gathered.v);
      n = into.best ? keepBestParts(count, into, n) : into.parts === null ? addParts(count, into, n) : collectParts(count, into, n);
    }
    return n;
  }

  /** Whether the gate passes over the current part (telling it the ordinals it passed). */
  #passes(gate: BlockGate): boolean {
    const tail = this.#part < 0;
    if (!gate.skips(tail ? this.#tailBound : this.#blockBound(this.#part))) return false;
    const pairs = this.#pool.pairs;
    if (tail) gate.passed(pairs[this.#tailBase]!, pairs[this.#tailBase + 2 * (this.#tailSize - 1)]!);
    else gate.passed(this.#blocks.first[this.#part]!, this.#blocks.last[this.#part]!);
    return true;
  }

  /** The current part's live postings in [base, hi], newest first, as offsets from `base` and frequencies in `gathered`; returns how many. */
  #gather(base: number, hi: number, alive: Uint8Array): number {
    if (gathered.at.length < this.#partTop + 1) {
      gathered.at = new Uint32Array(Math.max(BLOCK, this.#partTop + 1));
      gathered.f = new Uint32Array(gathered.at.length);
      gathered.v = new Float64Array(gathered.at.length);
    }
    const docs = this.#partDocs;
    const freqs = this.#partFreqs;
    const step = this.#partStep;
    const at = gathered.at;
    const fs = gathered.f;
    let n = 0;
    for (let i = this.#partTop; i >= 0; i--) {
      const ord = docs[step * i]!;
      if (ord > hi) continue;
      if (ord < base) break;
      if (alive[ord] === 0) continue;
      at[n] = ord - base;
      fs[n++] = freqs[step * i + this.#partFreqAt]!;
    }
    return n;
  }

  // The parts of the list a window overlaps, newest first: the tail, then
  // each block. #firstPart and #nextPart return TAIL for the tail's
  // postings, to read from #partDocs (ordinals at step × i) and #partFreqs
  // (at step × i + #partFreqAt) for i from #partTop down; BLOCK_PART for a
  // block (#part is its number; -1 for the tail), which #decodePart makes
  // readable so; NONE at the end.
  #part = -1;
  /** The next block to look at (-1: none). */
  #partNext = -1;
  #partDocs: Uint32Array = new Uint32Array(0);
  #partFreqs: Uint32Array = new Uint32Array(0);
  #partStep = 1;
  #partFreqAt = 0;
  #partTop = -1;

  #firstPart(base: number, hi: number): number {
    const pairs = this.#pool.pairs;
    this.#partNext = this.#block;
    if (this.#tailSize > 0 && pairs[this.#tailBase + 2 * (this.#tailSize - 1)]! >= base && pairs[this.#tailBase]! <= hi) {
      this.#part = -1;
      this.#partDocs = pairs.subarray(this.#tailBase);
      this.#partFreqs = this.#partDocs;
      this.#partStep = 2;
      this.#partFreqAt = 1;
      this.#partTop = this.#tailSize - 1;
      return TAIL;
    }
    return this.#nextPart(base, hi);
  }

  #nextPart(base: number, hi: number): number {
    const blocks = this.#blocks;
    let b = this.#partNext;
    while (b >= 0 && blocks.first[b]! > hi) b = blocks.prev[b]!;
    if (b < 0 || blocks.last[b]! < base) return NONE;
    this.#partNext = blocks.prev[b]!;
    this.#part = b;
    return BLOCK_PART;
  }

  /** Decodes the block #part into the block scratch, as the part's postings to read. */
  #decodePart(): void {
    this.#partTop = this.#decode(this.#part) - 1;
    this.#partDocs = this.#docs!;
    this.#partFreqs = this.#freqs!;
    this.#partStep = 1;
    this.#partFreqAt = 0;
  }

  /**
   * The frequency of the live posting at ordinal `d` (0: none), where `d`
   * lies in the current window and falls from one call to the next within
   * it: the block holding it is decoded (once) and searched.
   */
  probe(d: number, alive: Uint8Array): number {
    if (alive[d] === 0) return 0;
    const pairs = this.#pool.pairs;
    if (this.#tailSize > 0 && pairs[this.#tailBase]! <= d) {
      let lo = 0;
      let hi = this.#tailSize - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const ord = pairs[this.#tailBase + 2 * mid]!;
        if (ord === d) return pairs[this.#tailBase + 2 * mid + 1]!;
        if (ord < d) lo = mid + 1;
        else hi = mid - 1;
      }
      return 0;
    }
    const blocks = this.#blocks;
    let b = this.#probeBlock;
    if (b === -3 || (b >= 0 && blocks.last[b]! < d)) b = this.#block;
    while (b >= 0 && blocks.first[b]! > d) b = blocks.prev[b]!;
    this.#probeBlock = b;
    if (b < 0 || blocks.last[b]! < d) return 0;
    let lo = 0;
    let hi = this.#decode(b) - 1;
    const docs = this.#docs!;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const ord = docs[mid]!;
      if (ord === d) return this.#freqs![mid]!;
      if (ord < d) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** The newest ordinal below `base` the list may hold (-1: none); at most `base - 1`. */
  below(base: number): number {
    let next = -1;
    const pairs = this.#pool.pairs;
    if (this.#tailSize > 0 && pairs[this.#tailBase]! < base) {
      // The newest tail ordinal below base.
      let lo = 0;
      let hi = this.#tailSize - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (pairs[this.#tailBase + 2 * mid]! < base) lo = mid;
        else hi = mid - 1;
      }
      next = pairs[this.#tailBase + 2 * lo]!;
    }
    const blocks = this.#blocks;
    let b = this.#block;
    while (b >= 0 && blocks.first[b]! >= base) b = blocks.prev[b]!;
    if (b >= 0) next = Math.max(next, blocks.last[b]! < base ? blocks.last[b]! : base - 1);
    return next;
  }

  /** Decodes block `b` into the block scratch, unless it is there already; returns its postings. */
  #decode(b: number): number {
    if (this.#decoded !== b) {
      this.#docs ??= new Uint32Array(BLOCK);
      this.#freqs ??= new Uint32Array(BLOCK);
      this.#decodedCount = this.#blocks.decode(b, this.#docs, this.#freqs);
      this.#decoded = b;
    }
    return this.#decodedCount;
  }

  #blockBound(b: number): number {
    return this.#blocks.bound(b, this.#weight, this.#avg);
  }
}
