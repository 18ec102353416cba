import { newPartTable, part } from './part-table.js';
import { KERNEL_ON, KERNEL_SLOTS, PostingKernel, SETTLE_FILLED, SETTLE_KEPT, SETTLE_KNOWN, SETTLE_PROBED } from './posting-kernel.js';
import { swapPair } from './typed-arrays.js';
import type { BlockGate, WindowReader } from './window-reader.js';

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
   * postings adds. Null and NaN for the prefix. (Every slot has every
   * field, so that all are objects of one shape to V8: a shape met
   * after the search code was compiled throws the compiled code away.)
   */
  strong: (() => WindowReader | null) | null;
  weakBound: number;
}

/** What the search needs of the facts. */
export interface FactView {
  lengths: Uint32Array;
  /** Whether ordinals follow id order (a lower ordinal is an older fact). */
  ordered: boolean;
  /** Whether fact `a` is older (has the lower id) than fact `b`. */
  older(a: number, b: number): boolean;
}

/** A hit by ordinal. */
export interface OrdinalHit {
  ord: number;
  score: number;
}

/** Fact ordinals per window: the unit of skipping, and of scoring in bulk. */
export const WINDOW = 2048;

/**
 * A window is scored whole, every slot's postings decoded, when its
 * essential slots hold at least 1/BULK of its postings: visiting them as
 * candidates one by one costs more than that.
 */
const BULK = 8;

/**
 * A window scored whole lists only the facts whose sums reach the
 * threshold (its sums then cleared whole) when its postings are at least
 * 1/SCAN of its ordinals; a sparser one lists every fact met.
 */
const SCAN = 4;

/**
 * A window scored whole reads its non-essential slots only for the facts
 * that may still enter (probed) when those slots hold at least 1/REST of
 * its postings: the common words of a query are then mostly left unread.
 */
const REST = 2;

/**
 * Widens a bound summed in another order than scoreDoc's sum (essential
 * parts first, then the others' bounds) past any rounding that order may
 * cost, so that it stays at or above the exact score.
 */
const SLACK = 1 + 2 ** -40;

/**
 * A probe costs about as much as reading this many postings: when a
 * window's facts left to probe would cost more than reading the other
 * slots whole, the next {@link RETRY} windows read them whole (twice as
 * many each time it happens again in one search).
 */
const PROBE = 4;
const RETRY = 8;

/**
 * A window whose postings to read are at least 1/HOLD of its facts has
 * its `alive` and `lengths` copied into the kernel's memory before it is
 * read, so that the kernel reads its wide blocks and tails too (they
 * alone would not repay the copy).
 */
const HOLD = 8;

/**
 * Facts of a window from which the kernel settles them: handing it the
 * window's lists (every part of every probed list, walked and described;
 * the bytes copied only when a probe needs them) costs more than a few
 * JavaScript probes. Paired on the bench's Zipf 1,000,000 image: from 16,
 * p99 9.3 -> 8.4 ms with the p50 unchanged; from 1, the p50 rose 1.21 ->
 * 1.58 ms when every block was copied up front, and 1.22 -> 1.51 ms with
 * the copies made at the first probe.
 */
const KERNEL_SETTLE_FROM = 16;

/**
 * The working arrays of a search, kept between searches (they run one at
 * a time, synchronously): a window's frequencies, offsets, sums and
 * candidates are all zero again when a window ends, and a slot's table is
 * cleared when a search takes it.
 */
const kernel = new PostingKernel(WINDOW);
/** The heap of a search's best facts (max-score's offer), grown to the largest k asked. */
const heap = { ords: new Uint32Array(0), scores: new Float64Array(0) };
const scratch = {
  // Where the posting kernel writes: in its memory.
  scores: kernel.scores,
  candidates: kernel.candidates,
  survivors: kernel.survivors,
  survivorParts: kernel.survivorParts,
  isCandidate: kernel.isCandidate,
  bestParts: kernel.bestParts,
  bestOffsets: kernel.bestOffsets,
  /** The ways of reading (ReadInto), their floors set per window. */
  accumulateInto: kernel.into({ scores: kernel.scores, listed: kernel.isCandidate, offsets: kernel.candidates, parts: null, best: false }),
  collectInto: kernel.into({ scores: null, listed: null, offsets: kernel.survivors, parts: kernel.survivorParts, best: false }),
  bestInto: kernel.into({ scores: kernel.bestParts, listed: null, offsets: kernel.bestOffsets, parts: null, best: true }),
  slotFreqs: [] as Uint32Array[],
  slotOffsets: [] as Uint32Array[],
  slotTables: [] as Float64Array[],
  freqs(s: number): Uint32Array {
    // In the kernel's memory where it has room: the kernel settles from them.
    return (this.slotFreqs[s] ??= kernel.freqs(s) ?? new Uint32Array(WINDOW));
  },
  offsets(s: number): Uint32Array {
    return (this.slotOffsets[s] ??= new Uint32Array(WINDOW));
  },
  table(s: number): Float64Array {
    return kernel.table(s) ?? (this.slotTables[s] ??= newPartTable()).fill(NaN);
  },
  /** Zeroes everything: after a search that threw half-way through a window. */
  reset(): void {
    this.scores.fill(0);
    this.isCandidate.fill(0);
    this.bestParts.fill(0);
    for (const f of this.slotFreqs) f?.fill(0);
  },
};

/** A search's arrays by slot, kept between searches. */
interface SlotState {
  freqs: Uint32Array[];
  /** Per slot, the window offsets its frequencies were set at (to score them and to clear them). */
  offsets: Uint32Array[];
  tables: Float64Array[];
  order: number[];
  passedLo: number[];
  passedHi: number[];
  counts: Uint32Array;
  slotCount: Uint32Array;
  filled: Uint8Array;
  essential: Uint8Array;
  known: Uint8Array;
  present: Uint8Array;
  windowUb: Float64Array;
  contrib: Float64Array;
}

function newSlotState(slots: number): SlotState {
  return {
    freqs: [],
    offsets: [],
    tables: [],
    order: [],
    passedLo: [],
    passedHi: [],
    counts: new Uint32Array(slots),
    slotCount: new Uint32Array(slots),
    filled: new Uint8Array(slots),
    essential: new Uint8Array(slots),
    known: new Uint8Array(slots),
    present: new Uint8Array(slots),
    windowUb: new Float64Array(slots),
    contrib: new Float64Array(slots),
  };
}

let slotStateKept = newSlotState(KERNEL_SLOTS);

/**
 * The per-slot arrays for a search of `n` slots: the numbers 0 (grown
 * when a query has more slots than any before). The lists are written
 * from 0 by the search, never emptied: emptying an array drops its
 * backing store, and refilling it allocates another.
 */
function slotState(n: number): SlotState {
  if (slotStateKept.counts.length < n) slotStateKept = newSlotState(n);
  const state = slotStateKept;
  state.counts.fill(0, 0, n);
  state.slotCount.fill(0, 0, n);
  state.filled.fill(0, 0, n);
  state.essential.fill(0, 0, n);
  state.known.fill(0, 0, n);
  state.present.fill(0, 0, n);
  state.windowUb.fill(0, 0, n);
  state.contrib.fill(0, 0, n);
  return state;
}

/**
 * The next window ends just below `base`, at the newest posting any list may hold there.
 *
 * (The search's loops over slots and readers are indexed, not for-of:
 * V8 left an array iterator and its results on the heap for each such
 * loop in each window, some 8 KB a search at Zipf 100,000, which the
 * daemon's scavenges then had to collect.)
 */
function nextWindow(slots: readonly Slot[], base: number): number {
  if (base <= 0) return -1;
  let next = -1;
  for (let s = 0; s < slots.length; s++) {
    const readers = slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) next = Math.max(next, readers[i]!.below(base));
  }
  return next;
}

/**
 * The `k` best facts for the slots, best first, ties newest first, with
 * scores bit for bit equal to scoring every fact: MaxScore by windows of
 * fact ordinals, newest window first (as Lucene's MaxScoreBulkScorer).
 *
 * - Bounds. A slot adds to a fact at most `weight × saturation(f, length)`
 *   of the best pair of a score frontier (score-frontier.ts; BM25 rises
 *   with the frequency and falls with the length, and IEEE arithmetic is
 *   monotonic): its lists' for the whole query, the blocks overlapping a
 *   window for that window. A fact's bound is a sum of such bounds *in
 *   slot order*, so it is never below its exact score, which is summed in
 *   the same order: pruning drops nothing the exhaustive ranking keeps.
 * - Threshold. Once k facts are held, the k-th score is the threshold.
 *   Facts are met newest first, so when ids follow ordinals a fact met
 *   later loses a tie: a bound equal to the threshold prunes too.
 * - Windows. A window whose slots' bounds together cannot reach the
 *   threshold is skipped without decoding anything. Otherwise its weakest
 *   slots whose bounds together cannot reach it are non-essential: only
 *   the others' postings make candidates, decoded into dense arrays; a
 *   candidate's bound (exact parts so far, window bounds for the rest)
 *   decides whether the non-essential slots are read for it at all.
 */
export function maxScore(slots: readonly Slot[], own: number, prefix: number, k: number, avg: number, facts: FactView, alive: Uint8Array): OrdinalHit[] {
  try {
    kernel.startSearch();
    return searchWindows(slots, own, prefix, k, avg, facts, alive);
  } catch (err) {
    scratch.reset();
    throw err;
  }
}

function searchWindows(slots: readonly Slot[], own: number, prefix: number, k: number, avg: number, facts: FactView, alive: Uint8Array): OrdinalHit[] {
  const n = slots.length;
  const lengths = facts.lengths;
  const ordered = facts.ordered;
  // The heap of the best facts so far, worst at the top: typed arrays
  // kept between searches, so a search allocates nothing per fact offered.
  if (heap.ords.length < k) {
    heap.ords = new Uint32Array(k);
    heap.scores = new Float64Array(k);
  }
  const heapOrd = heap.ords;
  const heapScore = heap.scores;
  let held = 0;
  let threshold = -Infinity;
  const prunable = (b: number) => held >= k && (b < threshold || (b === threshold && ordered));
  const worse = (a: number, sa: number, b: number, sb: number): boolean => (sa !== sb ? sa < sb : facts.older(a, b));
  const offer = (ord: number, score: number): void => {
    if (held < k) {
      heapOrd[held] = ord;
      heapScore[held] = score;
      for (let at = held++; at > 0; ) {
        const up = (at - 1) >> 1;
        if (!worse(heapOrd[at]!, heapScore[at]!, heapOrd[up]!, heapScore[up]!)) break;
        swapPair(heapOrd, heapScore, up, at);
        at = up;
      }
    } else if (worse(heapOrd[0]!, heapScore[0]!, ord, score)) {
      heapOrd[0] = ord;
      heapScore[0] = score;
      for (let at = 0; ; ) {
        const l = 2 * at + 1;
        if (l >= held) break;
        const r = l + 1;
        const c = r < held && worse(heapOrd[r]!, heapScore[r]!, heapOrd[l]!, heapScore[l]!) ? r : l;
        if (!worse(heapOrd[c]!, heapScore[c]!, heapOrd[at]!, heapScore[at]!)) break;
        swapPair(heapOrd, heapScore, c, at);
        at = c;
      }
    } else return;
    if (held >= k) threshold = heapScore[0]!;
  };

  // Arrays built element by element from 0, never by map() or
  // Array.from(): the array those make differs in kind from V8's
  // interpreter to its compiled code, and code compiled for one kind is
  // thrown away on meeting the other (seen as "wrong map"
  // deoptimizations, each costing a recompile of searchWindows, ~100 ms
  // of a background thread, in a daemon's first thousand searches). The
  // per-slot arrays are kept between searches too, as the heap is.
  const { freqs, offsets, tables, order, counts, filled, slotCount, essential, windowUb, known, contrib, present, passedLo, passedHi } = slotState(n);
  for (let s = 0; s < n; s++) {
    freqs[s] = scratch.freqs(s);
    offsets[s] = scratch.offsets(s);
    tables[s] = scratch.table(s);
    order[s] = s;
  }
  const scores = scratch.scores;
  /** The window's candidates (offsets), and which offsets are among them. */
  const candidates = scratch.candidates;
  const survivors = scratch.survivors;
  const survivorParts = scratch.survivorParts;
  /** The window the one-essential-slot scoring is next tried at (see PROBE). */
  let probeAgainAt = 0;
  let retryGap = RETRY;
  let windowNo = 0;
  const isCandidate = scratch.isCandidate;
  /** Where windows scored whole put their sums, and the lone-slot windows their survivors; floors set per window. */
  const accumulateInto = scratch.accumulateInto;
  const collectInto = scratch.collectInto;
  /** Where the prefix's lists put each fact's best part (see readBest). */
  const bestParts = scratch.bestParts;
  const bestOffsets = scratch.bestOffsets;
  /** How many ordinal ranges (passedLo, passedHi) a slot's blocks passed over in this window. */
  let passed = 0;
  /**
   * The prefix completes to one word: its one list is read as a term's
   * is (the very parts), where several lists are merged first.
   */
  const prefixOneList = prefix >= 0 && slots[prefix]!.readers.length === 1;
  // Read once, here: a branch taken first after V8 compiled the loop
  // sends it back to its interpreter for each access it never saw.
  const prefixSlot = prefix >= 0 ? slots[prefix]! : null;
  const prefixTable = prefix >= 0 ? tables[prefix]! : null;
  /**
   * A slot's block can be passed over when the fact bound with the block's
   * bound in the slot's place (the others' at their window bounds, summed
   * in slot order) is prunable: then no fact in its ordinal range can
   * enter, whether it holds the slot's word or not. The threshold is the
   * window's start one or higher, and the facts held are all newer.
   */
  const gate: BlockGate & { slot: number } = {
    slot: 0,
    skips(bound: number): boolean {
      let b = 0;
      for (let t = 0; t < n; t++) b += t === this.slot ? bound : windowUb[t]!;
      return prunable(b);
    },
    passed(lo: number, hi: number): void {
      passedLo[passed] = lo;
      passedHi[passed] = hi;
      passed++;
    },
  };
  /** Sum in slot order: exact where known, else the window bound. */
  const boundNow = (): number => {
    let b = 0;
    for (let s = 0; s < n; s++) {
      if (known[s] !== 0) {
        if (present[s] !== 0) b += contrib[s]!;
      } else b += windowUb[s]!;
    }
    return b;
  };
  /**
   * While a window's facts are settled: how many offsets the prefix's
   * lists, read whole for the window (readBest), listed; -1 while they
   * are probed fact by fact instead.
   */
  let prefixKept = -1;
  const fillSlot = (s: number, base: number, hi: number): void => {
    let count = 0;
    const readers = slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) count = readers[i]!.fill(base, hi, alive, freqs[s]!, offsets[s]!, count);
    counts[s] = count;
    filled[s] = 1;
  };

  /**
   * Finishes a candidate whose essential slots are known (`known`,
   * `present`, `contrib`): the others probed, strongest first, while the
   * fact can still enter; then, unless it cannot, offered with exactly
   * scoreDoc's sum: the terms in query order, then the prefix part unless
   * the fact holds the prefix's own word.
   */
  const settle = (d: number, at: number, length: number): void => {
    for (let j = n - 1; j >= 0; j--) {
      const s = order[j]!;
      if (known[s] !== 0) continue;
      if (prunable(boundNow())) return;
      known[s] = 1;
      if (s === prefix && prefixKept >= 0) {
        // Read for the window already: the fact's best part, or 0.
        const v = bestParts[at]!;
        present[s] = v > 0 ? 1 : 0;
        contrib[s] = v;
        continue;
      }
      let f = 0;
      if (filled[s] !== 0) f = freqs[s]![at]!;
      else {
        const readers = slots[s]!.readers;
        for (let i = 0; i < readers.length; i++) f = Math.max(f, readers[i]!.probe(d, alive));
      }
      present[s] = f > 0 ? 1 : 0;
      if (f > 0) contrib[s] = part(tables[s]!, slots[s]!.weight, f, length, avg);
    }
    if (prunable(boundNow())) return;
    let score = 0;
    for (let s = 0; s < n; s++) if (s !== prefix && present[s] !== 0) score += contrib[s]!;
    if (prefix >= 0 && present[prefix] !== 0 && !(own >= 0 && present[own] !== 0)) score += contrib[prefix]!;
    if (score > 0) offer(d, score);
  };

  /**
   * The settling of a window's facts (`count` offsets of `facts`, newest
   * first): the survivors of a window read for its one essential slot,
   * `lone`, or (`lone` -1) the candidates of its essential slots, read
   * whole (filled), done by the kernel (posting-kernel.wat's settle: the
   * very steps and doubles of settle above, each fact in turn), which
   * hands back each fact to offer. False, having done nothing, when the
   * window's lists do not fit in its memory, or when there are too few
   * facts to repay handing the lists over ({@link KERNEL_SETTLE_FROM}).
   */
  const settleInKernel = (base: number, hi: number, lone: number, facts: Uint32Array, count: number): boolean => {
    if (!KERNEL_ON || n > KERNEL_SLOTS || count < KERNEL_SETTLE_FROM) return false;
    kernel.settleStart(base, hi, alive, lengths);
    for (let s = 0; s < n; s++) {
      const kind =
        s === lone || windowUb[s] === 0
          ? SETTLE_KNOWN
          : filled[s] !== 0
            ? SETTLE_FILLED
            : essential[s] !== 0 && lone < 0
              ? SETTLE_KNOWN
              : s === prefix && prefixKept >= 0
                ? SETTLE_KEPT
                : SETTLE_PROBED;
      if (!kernel.settleSlot(windowUb[s]!, slots[s]!.weight, tables[s]!, kind, freqs[s]!)) return false;
      if (kind !== SETTLE_PROBED) continue;
      const readers = slots[s]!.readers;
      for (let i = 0; i < readers.length; i++) if (!kernel.settleList() || !readers[i]!.probeParts(base, hi, kernel)) return false;
    }
    for (let i = 0; i < count; ) {
      i = kernel.settle(facts, i, count, lone, own, prefix, held >= k, threshold, ordered, avg, order);
      if (i < count) offer(base + facts[i++]!, kernel.settledScore);
    }
    return true;
  };

  let top = -1;
  for (let s = 0; s < n; s++) {
    const readers = slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) top = Math.max(top, readers[i]!.top());
  }
  if (k <= 0) top = -1;
  for (let hi = top; hi >= 0; hi = nextWindow(slots, Math.max(0, hi - WINDOW + 1))) {
    const base = Math.max(0, hi - WINDOW + 1);
    for (let s = 0; s < n; s++) {
      let best = 0;
      const readers = slots[s]!.readers;
      for (let i = 0; i < readers.length; i++) {
        const b = readers[i]!.bound(base, hi);
        if (b > best) best = b;
      }
      windowUb[s] = best;
      known[s] = 0;
    }
    if (prunable(boundNow())) continue;
    // The weakest slots whose bounds together cannot reach the threshold.
    // By window bound, weakest first: an insertion sort, stable as
    // Array.prototype.sort is, without its call per comparison (a query
    // has a few slots, and this runs for every window).
    for (let j = 1; j < n; j++) {
      const s = order[j]!;
      let i = j - 1;
      for (; i >= 0 && windowUb[order[i]!]! > windowUb[s]!; i--) order[i + 1] = order[i]!;
      order[i + 1] = s;
    }
    essential.fill(1, 0, n);
    for (let j = 0; j < n; j++) {
      const s = order[j]!;
      essential[s] = 0;
      let b = 0;
      for (let t = 0; t < n; t++) if (essential[t] === 0) b += windowUb[t]!;
      if (!prunable(b)) {
        essential[s] = 1;
        break;
      }
    }
    let essentialCount = 0;
    let allCount = 0;
    for (let s = 0; s < n; s++) {
      filled[s] = 0;
      counts[s] = 0;
      let count = 0;
      const readers = slots[s]!.readers;
      for (let i = 0; i < readers.length; i++) count += readers[i]!.count;
      allCount += count;
      slotCount[s] = count;
      if (essential[s] !== 0) essentialCount += count;
    }
    // The one essential slot, when there is one (-1: none or several).
    let lone = -1;
    let restUb = 0;
    let restCount = 0;
    for (let s = 0; s < n; s++) {
      if (essential[s] !== 0) lone = lone === -1 ? s : -2;
      else if (windowUb[s]! > 0) {
        restUb += windowUb[s]!;
        restCount += slotCount[s]!;
      }
    }
    windowNo++;
    if (BULK * essentialCount >= allCount && REST * restCount >= allCount && lone >= 0 && (lone === prefix || slots[lone]!.readers.length === 1) && windowNo >= probeAgainAt) {
      // One essential slot, and most of the window's postings are the
      // others' (a query's common words): score the essential slot's
      // postings whole, then read the others only for the facts that can
      // still enter with them at their bounds, as candidates.
      // A part at or below `floor` cannot lift its fact to the threshold,
      // with room to spare for rounding (settle decides exactly).
      const floor = held < k ? 0 : Math.max(0, threshold / SLACK - restUb - threshold * (SLACK - 1));
      if (KERNEL_ON && HOLD * slotCount[lone]! >= hi - base + 1) kernel.holdWindow(base, hi, alive, lengths);
      gate.slot = lone;
      const slot = slots[lone]!;
      let ns = 0;
      if (lone === prefix && !prefixOneList) {
        // The prefix's part is that of a fact's most frequent completion.
        const count = readBest(prefixSlot!, prefixTable!, base, hi, alive, lengths, avg);
        for (let i = 0; i < count; i++) {
          const at = bestOffsets[i]!;
          if (bestParts[at]! > floor) survivors[ns++] = at;
        }
        // Newest first (the lists' offsets interleave).
        survivors.subarray(0, ns).sort().reverse();
        for (let i = 0; i < ns; i++) survivorParts[i] = bestParts[survivors[i]!]!;
        kernel.clearBest(count);
      } else {
        // When no weak posting can pass the floor, the strong list holds every one that can.
        let reader: WindowReader | null = slot.readers[0]!;
        if (slot.strong !== null && slot.weakBound <= floor) {
          reader = slot.strong();
          reader?.bound(base, hi);
        }
        collectInto.floor = floor;
        if (reader !== null) ns = reader.read(base, hi, alive, tables[lone]!, slot.weight, avg, lengths, gate, collectInto, 0, kernel);
      }
      passed = 0;
      // A fact's probe of the prefix reads each of its lists (up to eight
      // completions): when the facts to settle would probe them more than
      // reading them whole costs, they are read whole, each fact's best
      // part kept, and settle looks the facts up.
      let probed = 0;
      let prefixWhole = false;
      for (let s = 0; s < n; s++) {
        if (s === lone || windowUb[s] === 0) continue;
        const lists = slots[s]!.readers.length;
        if (s === prefix && lists > 1 && PROBE * ns * lists > slotCount[s]!) prefixWhole = true;
        else probed += lists;
      }
      // Called in every such window, reading nothing when not asked to: a
      // call first made after V8 compiled the loop sends it back to its
      // interpreter.
      prefixKept = readBest(prefixWhole ? prefixSlot : null, prefixTable, base, hi, alive, lengths, avg);
      // Newest first, as probes read down a window: in the kernel when the
      // window's lists fit there, else here.
      if (!settleInKernel(base, hi, lone, survivors, ns)) {
        for (let i = 0; i < ns; i++) {
          const at = survivors[i]!;
          const d = base + at;
          for (let s = 0; s < n; s++) known[s] = 0;
          // One slot's part, added to 0: the very double of its contribution.
          known[lone] = 1;
          present[lone] = 1;
          contrib[lone] = survivorParts[i]!;
          settle(d, at, lengths[d]!);
        }
      }
      // Always called (a call first made after V8 compiled the loop sends
      // it back to its interpreter); nothing to clear when -1.
      kernel.clearBest(prefixKept);
      prefixKept = -1;
      // Many facts left to probe cost more than reading the others whole.
      if (PROBE * ns * probed > restCount) {
        probeAgainAt = windowNo + retryGap;
        retryGap *= 2;
      }
    } else if (BULK * essentialCount >= allCount) {
      // Candidates would be most of what the window holds: score every
      // posting of it, slot by slot in slot order (so each fact's sum is in
      // scoreDoc's order), passing over the blocks that cannot matter, and
      // list the facts to offer as their sums are added. A fact's last part
      // makes its final sum, so listing each fact whose sum reaches the bar
      // lists every fact that can enter. In a dense window the bar is the
      // threshold once k facts are held, so few are listed (and the sums
      // are cleared whole); else it is 0: every fact met is listed, and
      // cleared as it is offered.
      const size = hi - base + 1;
      // The kernel will read this many postings: it may as well read the
      // wide blocks' and tails' too (WindowReader.read).
      if (KERNEL_ON && HOLD * allCount >= size) kernel.holdWindow(base, hi, alive, lengths);
      const bar = SCAN * allCount >= size && held >= k ? threshold : 0;
      accumulateInto.floor = bar;
      let nc = 0;
      const ownFirst = prefix >= 0 && own >= 0 && windowUb[own]! > 0;
      if (ownFirst) fillSlot(own, base, hi);
      // A prefix of one list, when no fact of the window can hold the word
      // as typed, adds its parts as a term does, last as scoreDoc sums it
      // (it is the last slot); else its lists are merged below.
      const prefixRead = prefixOneList && !ownFirst;
      for (let s = 0; s < n; s++) {
        if ((s === prefix && !prefixRead) || windowUb[s] === 0) continue;
        const table = tables[s]!;
        const weight = slots[s]!.weight;
        // One list per slot: a fact in a block's range holds the slot's word there or not at all.
        const readers = slots[s]!.readers;
        gate.slot = s;
        for (let i = 0; i < readers.length; i++) nc = readers[i]!.read(base, hi, alive, table, weight, avg, lengths, readers.length === 1 ? gate : null, accumulateInto, nc, kernel);
      }
      if (prefix >= 0 && !prefixRead && windowUb[prefix]! > 0) {
        const count = readBest(prefixSlot!, prefixTable!, base, hi, alive, lengths, avg);
        const ownF = ownFirst ? freqs[own]! : null;
        const listed = KERNEL_ON ? kernel.addBest(count, ownF, nc, bar) : -1;
        if (listed >= 0) nc = listed;
        else {
          for (let i = 0; i < count; i++) {
            const at = bestOffsets[i]!;
            if (ownF === null || ownF[at] === 0) scores[at]! += bestParts[at]!;
            bestParts[at] = 0;
            if (isCandidate[at] === 0 && scores[at]! >= bar) {
              isCandidate[at] = 1;
              candidates[nc++] = at;
            }
          }
        }
      }
      // Facts in a range some slot passed over cannot enter.
      for (let i = 0; i < passed; i++) scores.fill(0, Math.max(base, passedLo[i]!) - base, Math.min(hi, passedHi[i]!) - base + 1);
      passed = 0;
      // Offered in any order: offer() settles ties by id.
      for (let i = 0; i < nc; i++) {
        const at = candidates[i]!;
        const score = scores[at]!;
        if (score > 0 && score >= threshold) offer(base + at, score);
        isCandidate[at] = 0;
        scores[at] = 0;
      }
      if (bar > 0) scores.fill(0, 0, size);
    } else {
      // The candidates: every offset an essential slot holds.
      let nc = 0;
      for (let s = 0; s < n; s++) {
        if (essential[s] === 0 || windowUb[s] === 0) continue;
        fillSlot(s, base, hi);
        const list = offsets[s]!;
        for (let i = 0; i < counts[s]!; i++) {
          const at = list[i]!;
          if (isCandidate[at] === 0) {
            isCandidate[at] = 1;
            candidates[nc++] = at;
          }
        }
      }
      // Few candidates: each in turn, newest first, the non-essential
      // slots probed, strongest first, while the fact can still enter.
      candidates.subarray(0, nc).sort().reverse();
      for (let i = 0; i < nc; i++) isCandidate[candidates[i]!] = 0;
      if (!settleInKernel(base, hi, -1, candidates, nc)) {
        for (let i = 0; i < nc; i++) {
          const at = candidates[i]!;
          const d = base + at;
          const length = lengths[d]!;
          for (let s = 0; s < n; s++) {
            known[s] = essential[s]!;
            if (essential[s] === 0) continue;
            const f = filled[s] !== 0 ? freqs[s]![at]! : 0;
            present[s] = f > 0 ? 1 : 0;
            if (f > 0) contrib[s] = part(tables[s]!, slots[s]!.weight, f, length, avg);
          }
          settle(d, at, length);
        }
      }
    }
    // Leave the window's arrays as they were: zero.
    for (let s = 0; s < n; s++) {
      if (filled[s] === 0) continue;
      const f = freqs[s]!;
      const list = offsets[s]!;
      for (let i = 0; i < counts[s]!; i++) f[list[i]!] = 0;
    }
  }
  return ranked(heapOrd, heapScore, held, worse);
}

/**
 * A prefix slot's lists in the window [base, hi], each fact's best part
 * kept (that of its most frequent completion: the part rises with the
 * frequency, so the very double scoreDoc adds) in `bestParts` by offset;
 * returns how many offsets `bestOffsets` lists (-1, having read nothing,
 * without a slot). The caller sets them back to 0.
 *
 * Apart from the search loop, not a closure of it: a closure made afresh
 * by each search, seen at a rarely taken call site before V8 compiles the
 * loop, is a call target the next search's closure then fails ("wrong
 * call target"), sending the loop back to its interpreter.
 */
function readBest(slot: Slot | null, table: Float64Array | null, base: number, hi: number, alive: Uint8Array, lengths: Uint32Array, avg: number): number {
  if (slot === null || table === null) return -1;
  let count = 0;
  const readers = slot.readers;
  for (let i = 0; i < readers.length; i++) count = readers[i]!.read(base, hi, alive, table, slot.weight, avg, lengths, null, scratch.bestInto, count, kernel);
  return count;
}

/**
 * The heap's facts, best first. Apart from the search loop: the arrays it
 * builds have shapes of their own (an empty one, one of objects), and a
 * shape the loop's optimised code has not seen would send all of it back
 * to the interpreter at the end of a search.
 */
function ranked(heapOrd: Uint32Array, heapScore: Float64Array, held: number, worse: (a: number, sa: number, b: number, sb: number) => boolean): OrdinalHit[] {
  const hits: OrdinalHit[] = [];
  for (let i = 0; i < held; i++) hits.push({ ord: heapOrd[i]!, score: heapScore[i]! });
  hits.sort((a, b) => (worse(a.ord, a.score, b.ord, b.score) ? 1 : worse(b.ord, b.score, a.ord, a.score) ? -1 : 0));
  return hits;
}
