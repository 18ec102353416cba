import { newPartTable, part } from './part-table.js';
import { type FactView, TopK } from './top-k.js';
import type { BlockGate, ReadInto, WindowReader } from './window-reader.js';

/**
 * One part of a query's score: a term (one list) or the prefix's
 * completions (several lists, scored by the best one a fact holds).
 * Slots are in the order scoreDoc sums them: the query's terms, then the
 * prefix.
 */
export interface Slot {
  readers: WindowReader[];
  /** What multiplies the saturation: the term's idf, or PREFIX_WEIGHT × the prefix's idf. */
  weight: number;
  /** The most it adds to any fact: the best of its lists' frontier bounds. */
  ub: number;
  /**
   * A term's strong list (resident-index.ts: its postings of frequency 2
   * or more), read from the reader this gives (one, made at the first
   * call; null when the term has none), and the most any of its other
   * postings adds. Null and NaN for the prefix.
   */
  strong: (() => WindowReader | null) | null;
  weakBound: number;
}

/** Fact ordinals per window: the unit of skipping, and of scoring in bulk. */
export const WINDOW = 2048;

/**
 * Everything one search keeps while it walks the windows (searches run
 * one at a time, synchronously, so one set of arrays serves them all and
 * a search allocates nothing per window): the query's slots, the heap of
 * the best facts, per slot its window bound and what is known of the
 * fact being settled, and the window's dense arrays, all zero again when
 * a window ends.
 */
export class WindowSearch {
  slots: readonly Slot[] = [];
  n = 0;
  /** The slot of the prefix's own word, or -1. */
  own = -1;
  /** The prefix's slot, or -1. */
  prefix = -1;
  avg = 0;
  lengths: Uint32Array = new Uint32Array(0);
  alive: Uint8Array = new Uint8Array(0);
  readonly top = new TopK();

  // Per slot.
  freqs: Uint32Array[] = [];
  /** Per slot, the window offsets its frequencies were set at (to score them and to clear them). */
  offsets: Uint32Array[] = [];
  tables: Float64Array[] = [];
  /** The slots by window bound, weakest first. */
  order: number[] = [];
  counts = new Uint32Array(0);
  slotCount = new Uint32Array(0);
  filled = new Uint8Array(0);
  essential = new Uint8Array(0);
  known = new Uint8Array(0);
  present = new Uint8Array(0);
  windowUb = new Float64Array(0);
  contrib = new Float64Array(0);

  // Per window.
  readonly scores = new Float64Array(WINDOW);
  readonly candidates = new Uint32Array(WINDOW);
  readonly isCandidate = new Uint8Array(WINDOW);
  readonly survivors = new Uint32Array(WINDOW);
  readonly survivorParts = new Float64Array(WINDOW);
  readonly bestParts = new Float64Array(WINDOW);
  readonly bestOffsets = new Uint32Array(WINDOW);
  /** The ways of reading, their floors set per window. */
  readonly accumulateInto: ReadInto = { scores: this.scores, listed: this.isCandidate, offsets: this.candidates, floor: 0, parts: null, best: false };
  readonly collectInto: ReadInto = { scores: null, listed: null, offsets: this.survivors, floor: 0, parts: this.survivorParts, best: false };
  readonly bestInto: ReadInto = { scores: this.bestParts, listed: null, offsets: this.bestOffsets, floor: 0, parts: null, best: true };
  /** Ordinal ranges a slot's blocks passed over in this window (BlockGate). */
  passedLo: number[] = [];
  passedHi: number[] = [];
  passed = 0;
  /** The slot whose blocks the gate judges. */
  gateSlot = 0;
  /**
   * While a window's facts are settled: how many offsets the prefix's
   * lists, read whole for the window (readBest), listed; -1 while they
   * are probed fact by fact instead.
   */
  prefixKept = -1;
  /** The window the one-essential-slot scoring is next tried at, and how far the next retry is put off. */
  probeAgainAt = 0;
  retryGap = 0;
  windowNo = 0;

  /**
   * A slot's block can be passed over when the fact bound with the block's
   * bound in the slot's place (the others at their window bounds, summed in
   * slot order) is prunable: then no fact in its ordinal range can enter,
   * whether it holds the slot's word or not.
   */
  readonly gate: BlockGate = {
    skips: (bound: number): boolean => {
      let b = 0;
      for (let t = 0; t < this.n; t++) b += t === this.gateSlot ? bound : this.windowUb[t]!;
      return this.top.prunable(b);
    },
    passed: (lo: number, hi: number): void => {
      this.passedLo[this.passed] = lo;
      this.passedHi[this.passed] = hi;
      this.passed++;
    },
  };

  /** Readies every array for a search of `slots`; `retry` is the first gap of one-slot retries. */
  begin(slots: readonly Slot[], own: number, prefix: number, k: number, avg: number, facts: FactView, alive: Uint8Array, retry: number): void {
    const n = slots.length;
    this.slots = slots;
    this.n = n;
    this.own = own;
    this.prefix = prefix;
    this.avg = avg;
    this.lengths = facts.lengths;
    this.alive = alive;
    this.top.begin(k, facts);
    if (this.counts.length < n) this.#grow(n);
    for (const a of [this.counts, this.slotCount, this.filled, this.essential, this.known, this.present, this.windowUb, this.contrib]) a.fill(0, 0, n);
    for (let s = 0; s < n; s++) {
      this.freqs[s] ??= new Uint32Array(WINDOW);
      this.offsets[s] ??= new Uint32Array(WINDOW);
      this.tables[s] = (this.tables[s] ?? newPartTable()).fill(NaN);
      this.order[s] = s;
    }
    this.passed = 0;
    this.prefixKept = -1;
    this.probeAgainAt = 0;
    this.retryGap = retry;
    this.windowNo = 0;
  }

  #grow(n: number): void {
    this.counts = new Uint32Array(n);
    this.slotCount = new Uint32Array(n);
    this.filled = new Uint8Array(n);
    this.essential = new Uint8Array(n);
    this.known = new Uint8Array(n);
    this.present = new Uint8Array(n);
    this.windowUb = new Float64Array(n);
    this.contrib = new Float64Array(n);
  }

  /** Zeroes every window array: after a search that threw half-way through a window. */
  reset(): void {
    this.scores.fill(0);
    this.isCandidate.fill(0);
    this.bestParts.fill(0);
    for (const f of this.freqs) f.fill(0);
  }

  /** A fact's bound, summed in slot order: its exact part where known, else the slot's window bound. */
  boundNow(): number {
    let b = 0;
    for (let s = 0; s < this.n; s++) {
      if (this.known[s] !== 0) {
        if (this.present[s] !== 0) b += this.contrib[s]!;
      } else b += this.windowUb[s]!;
    }
    return b;
  }

  /** Sets slot `s`'s frequencies in the window [base, hi] (the best of its lists for each fact). */
  fillSlot(s: number, base: number, hi: number): void {
    let count = 0;
    const readers = this.slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) count = readers[i]!.fill(base, hi, this.alive, this.freqs[s]!, this.offsets[s]!, count);
    this.counts[s] = count;
    this.filled[s] = 1;
  }

  /**
   * The prefix's lists in the window [base, hi], each fact's best part
   * kept in `bestParts` by offset (that of its most frequent completion:
   * the part rises with the frequency, so the very double scoreDoc adds);
   * returns how many offsets `bestOffsets` lists. {@link clearBest} sets
   * them back to 0.
   */
  readBest(base: number, hi: number): number {
    const slot = this.slots[this.prefix]!;
    const table = this.tables[this.prefix]!;
    let count = 0;
    for (const reader of slot.readers) count = reader.read(base, hi, this.alive, table, slot.weight, this.avg, this.lengths, null, this.bestInto, count);
    return count;
  }

  /** Zeroes the best parts of the first `count` offsets readBest listed. */
  clearBest(count: number): void {
    for (let i = 0; i < count; i++) this.bestParts[this.bestOffsets[i]!] = 0;
  }

  /** Zeroes the frequencies the window's filled slots set. */
  clearWindow(): void {
    for (let s = 0; s < this.n; s++) {
      if (this.filled[s] === 0) continue;
      const f = this.freqs[s]!;
      const list = this.offsets[s]!;
      for (let i = 0; i < this.counts[s]!; i++) f[list[i]!] = 0;
    }
  }

  /**
   * Finishes a fact whose essential slots are known (`known`, `present`,
   * `contrib`): the others probed, strongest first, while the fact can
   * still enter; then, unless it cannot, offered with exactly scoreDoc's
   * sum: the terms in query order, then the prefix part unless the fact
   * holds the prefix's own word.
   */
  settle(d: number, at: number, length: number): void {
    for (let j = this.n - 1; j >= 0; j--) {
      const s = this.order[j]!;
      if (this.known[s] !== 0) continue;
      if (this.top.prunable(this.boundNow())) return;
      this.known[s] = 1;
      if (s === this.prefix && this.prefixKept >= 0) {
        // Read for the window already: the fact's best part, or 0.
        const v = this.bestParts[at]!;
        this.present[s] = v > 0 ? 1 : 0;
        this.contrib[s] = v;
        continue;
      }
      const f = this.filled[s] !== 0 ? this.freqs[s]![at]! : this.#probe(s, d);
      this.present[s] = f > 0 ? 1 : 0;
      if (f > 0) this.contrib[s] = part(this.tables[s]!, this.slots[s]!.weight, f, length, this.avg);
    }
    if (this.top.prunable(this.boundNow())) return;
    this.offer(d);
  }

  /** The frequency of slot `s` in fact `d`: the best of its lists' (0: none). */
  #probe(s: number, d: number): number {
    let f = 0;
    const readers = this.slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) f = Math.max(f, readers[i]!.probe(d, this.alive));
    return f;
  }

  /** Offers a fact whose every slot is known, with scoreDoc's sum of its parts. */
  offer(d: number): void {
    let score = 0;
    for (let s = 0; s < this.n; s++) if (s !== this.prefix && this.present[s] !== 0) score += this.contrib[s]!;
    const prefix = this.prefix;
    if (prefix >= 0 && this.present[prefix] !== 0 && !(this.own >= 0 && this.present[this.own] !== 0)) score += this.contrib[prefix]!;
    if (score > 0) this.top.offer(d, score);
  }
}
