import { BLOCK, type PostingBlocks } from './posting-blocks.js';
import type { PostingPool } from './posting-pool.js';
import { FRONT, frontierBound, setFrontier } from './score-frontier.js';

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
  readonly #tailFront = new Uint32Array(2 * FRONT);
  /** Whether the tail may still overlap the windows to come. */
  #tail: boolean;
  /** The newest block not yet wholly above the current window. */
  #block: number;
  /** Scratch of {@link fill} and {@link accumulate}: a window's postings, as offsets and frequencies. */
  #at = new Uint32Array(0);
  #f = new Uint32Array(0);
  readonly #docs = new Uint32Array(BLOCK);
  readonly #freqs = new Uint32Array(BLOCK);
  #decoded = -3;
  #decodedCount = 0;
  /** Where the last {@link probe} found its block (-3: not yet). */
  #probeBlock = -3;
  /** Bound cache: a search asks with one weight and average length. */
  readonly #weight: number;
  readonly #avg: number;
  readonly #tailBound: number;
  #boundBlock = -3;
  #boundValue = 0;

  constructor(pool: PostingPool, blocks: PostingBlocks, lengths: Uint32Array, list: number, weight: number, avg: number) {
    this.#pool = pool;
    this.#blocks = blocks;
    this.#list = list;
    this.#weight = weight;
    this.#avg = avg;
    this.#tailBase = 2 * pool.start[list]!;
    this.#tailSize = pool.size[list]!;
    const pairs = pool.pairs;
    const fs = new Uint32Array(this.#tailSize);
    const lens = new Uint32Array(this.#tailSize);
    for (let i = 0; i < this.#tailSize; i++) {
      fs[i] = pairs[this.#tailBase + 2 * i + 1]!;
      lens[i] = lengths[pairs[this.#tailBase + 2 * i]!]!;
    }
    setFrontier(fs, lens, this.#tailSize, this.#tailFront, 0);
    this.#tailBound = frontierBound(this.#tailFront, 0, weight, avg);
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
    const count = this.#collect(base, hi, alive);
    const at = this.#at;
    const fs = this.#f;
    for (let i = 0; i < count; i++) {
      const o = at[i]!;
      if (into[o] === 0) offsets[n++] = o;
      if (fs[i]! > into[o]!) into[o] = fs[i]!;
    }
    return n;
  }

  /**
   * Adds to `scores[ord - base]`, for each live posting in [base, hi],
   * `part(f, length)` (its slot's weight × saturation, the expression
   * scoreDoc evaluates), and lists each offset not yet in `listed` in
   * `offsets` (from `n`). Returns the new count.
   */
  accumulate(
    base: number,
    hi: number,
    alive: Uint8Array,
    part: (f: number, length: number) => number,
    lengths: Uint32Array,
    scores: Float64Array,
    listed: Uint8Array,
    offsets: Uint32Array,
    n: number,
  ): number {
    const count = this.#collect(base, hi, alive);
    const at = this.#at;
    const fs = this.#f;
    for (let i = 0; i < count; i++) {
      const o = at[i]!;
      scores[o]! += part(fs[i]!, lengths[base + o]!);
      if (listed[o] === 0) {
        listed[o] = 1;
        offsets[n++] = o;
      }
    }
    return n;
  }

  /**
   * The live postings in [base, hi], newest first, into the scratch
   * arrays: their offsets from `base` and their frequencies. Returns how
   * many.
   */
  #collect(base: number, hi: number, alive: Uint8Array): number {
    if (this.#at.length < hi - base + 1) {
      this.#at = new Uint32Array(hi - base + 1);
      this.#f = new Uint32Array(hi - base + 1);
    }
    const at = this.#at;
    const fs = this.#f;
    let n = 0;
    const pairs = this.#pool.pairs;
    if (this.#tailSize > 0 && pairs[this.#tailBase + 2 * (this.#tailSize - 1)]! >= base && pairs[this.#tailBase]! <= hi) {
      for (let i = this.#tailSize - 1; i >= 0; i--) {
        const ord = pairs[this.#tailBase + 2 * i]!;
        if (ord > hi) continue;
        if (ord < base) break;
        if (alive[ord] === 0) continue;
        at[n] = ord - base;
        fs[n++] = pairs[this.#tailBase + 2 * i + 1]!;
      }
    }
    const blocks = this.#blocks;
    for (let b = this.#block; b >= 0 && blocks.last[b]! >= base; b = blocks.prev[b]!) {
      if (blocks.first[b]! > hi) continue;
      const decoded = this.#decode(b);
      const docs = this.#docs;
      const freqs = this.#freqs;
      for (let i = decoded - 1; i >= 0; i--) {
        const ord = docs[i]!;
        if (ord > hi) continue;
        if (ord < base) break;
        if (alive[ord] === 0) continue;
        at[n] = ord - base;
        fs[n++] = freqs[i]!;
      }
    }
    return n;
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
    const docs = this.#docs;
    let lo = 0;
    let hi = this.#decode(b) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const ord = docs[mid]!;
      if (ord === d) return this.#freqs[mid]!;
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
      this.#decodedCount = this.#blocks.decode(b, this.#docs, this.#freqs);
      this.#decoded = b;
    }
    return this.#decodedCount;
  }

  #blockBound(b: number): number {
    if (b !== this.#boundBlock) {
      this.#boundBlock = b;
      this.#boundValue = frontierBound(this.#blocks.front, 2 * FRONT * b, this.#weight, this.#avg);
    }
    return this.#boundValue;
  }
}
