import type { FactView, OrdinalHit } from './top-k.js';
import { type Slot, WINDOW, WindowSearch } from './window-search.js';
import { readWindowWhole, scoreCandidates, scoreLoneSlot } from './window-scoring.js';

export type { Slot } from './window-search.js';
export type { FactView, OrdinalHit } from './top-k.js';
export { WINDOW } from './window-search.js';

/**
 * A window is scored whole, every slot's postings decoded, when its
 * essential slots hold at least 1/BULK of its postings: visiting them as
 * candidates one by one costs more than that.
 */
const BULK = 8;

/**
 * A window scored whole reads its non-essential slots only for the facts
 * that may still enter (probed) when those slots hold at least 1/REST of
 * its postings: the common words of a query are then mostly left unread.
 */
const REST = 2;

/**
 * When a window's facts left to probe would cost more than reading the
 * other slots whole, the next RETRY windows read them whole (twice as
 * many each time it happens again in one search): window-scoring.ts.
 */
const RETRY = 8;

/** The one search state: searches run one at a time, synchronously. */
const search = new WindowSearch();

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
 * - Range. Only the ordinals of `range` are searched: a filter's mask
 *   (`alive`) marks no fact outside it.
 * - Windows. A window whose slots' bounds together cannot reach the
 *   threshold is skipped without decoding anything. Otherwise its weakest
 *   slots whose bounds together cannot reach it are non-essential: only
 *   the others' postings make candidates (window-scoring.ts).
 */
export function maxScore(
  slots: readonly Slot[],
  own: number,
  prefix: number,
  k: number,
  avg: number,
  facts: FactView,
  alive: Uint8Array,
  range: { lo: number; hi: number } = { lo: 0, hi: Infinity },
): OrdinalHit[] {
  search.begin(slots, own, prefix, k, avg, facts, alive, RETRY);
  try {
    const lo = range.lo;
    let top = -1;
    for (const slot of slots) for (const reader of slot.readers) top = Math.max(top, reader.top());
    if (k <= 0) top = -1;
    // Only ordinals lo..range.hi may be live (a filter's span): the windows cover them alone.
    if (top > range.hi) top = nextWindow(slots, range.hi + 1);
    for (let hi = top; hi >= lo; hi = nextWindow(slots, Math.max(lo, hi - WINDOW + 1))) searchWindow(search, Math.max(lo, hi - WINDOW + 1), hi);
    return search.top.ranked();
  } catch (err) {
    search.reset();
    throw err;
  }
}

/** The next window ends just below `base`, at the newest posting any list may hold there. */
function nextWindow(slots: readonly Slot[], base: number): number {
  if (base <= 0) return -1;
  let next = -1;
  for (let s = 0; s < slots.length; s++) {
    const readers = slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) next = Math.max(next, readers[i]!.below(base));
  }
  return next;
}

/** Searches the window [base, hi]: its bounds, which slots are essential, then one way of scoring it. */
function searchWindow(w: WindowSearch, base: number, hi: number): void {
  windowBounds(w, base, hi);
  if (w.top.prunable(w.boundNow())) return;
  chooseEssential(w);
  let essentialCount = 0;
  let allCount = 0;
  let lone = -1;
  let restCount = 0;
  for (let s = 0; s < w.n; s++) {
    w.filled[s] = 0;
    w.counts[s] = 0;
    let count = 0;
    const readers = w.slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) count += readers[i]!.count;
    allCount += count;
    w.slotCount[s] = count;
    // The one essential slot, when there is one (-1: none, -2: several).
    if (w.essential[s] !== 0) {
      essentialCount += count;
      lone = lone === -1 ? s : -2;
    } else if (w.windowUb[s]! > 0) restCount += count;
  }
  w.windowNo++;
  const bulk = BULK * essentialCount >= allCount;
  const oneList = lone >= 0 && (lone === w.prefix || w.slots[lone]!.readers.length === 1);
  if (bulk && REST * restCount >= allCount && oneList && w.windowNo >= w.probeAgainAt) scoreLoneSlot(w, base, hi, lone, restCount);
  else if (bulk) readWindowWhole(w, base, hi, allCount);
  else scoreCandidates(w, base, hi);
  w.clearWindow();
}

/** Moves every slot's readers to the window and sets its window bound (the best of its lists'). */
function windowBounds(w: WindowSearch, base: number, hi: number): void {
  for (let s = 0; s < w.n; s++) {
    let best = 0;
    const readers = w.slots[s]!.readers;
    for (let i = 0; i < readers.length; i++) {
      const b = readers[i]!.bound(base, hi);
      if (b > best) best = b;
    }
    w.windowUb[s] = best;
    w.known[s] = 0;
  }
}

/**
 * Orders the slots by window bound, weakest first, and marks essential
 * all but the weakest whose bounds together cannot reach the threshold.
 */
function chooseEssential(w: WindowSearch): void {
  const { order, windowUb, essential, n } = w;
  // An insertion sort, stable as Array.prototype.sort is, without its call
  // per comparison: a query has a few slots, and this runs every window.
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
    if (!w.top.prunable(b)) {
      essential[s] = 1;
      return;
    }
  }
}
