// The three ways max-score.ts scores a window, by where its postings lie.
import { part } from './part-table.js';
import type { WindowReader } from './window-reader.js';
import type { WindowSearch } from './window-search.js';

/**
 * A window scored whole lists only the facts whose sums reach the
 * threshold (its sums then cleared whole) when its postings are at least
 * 1/SCAN of its ordinals; a sparser one lists every fact met.
 */
const SCAN = 4;

/**
 * Widens a bound summed in another order than scoreDoc's sum (essential
 * parts first, then the others' bounds) past any rounding that order may
 * cost, so that it stays at or above the exact score.
 */
const SLACK = 1 + 2 ** -40;

/**
 * A probe costs about as much as reading this many postings: when a
 * window's facts left to probe would cost more than reading the other
 * slots whole, the next windows read them whole (WindowSearch.retryGap).
 */
const PROBE = 4;

/**
 * One essential slot, `lone`, and most of the window's postings are the
 * others' (a query's common words): reads the lone slot's postings whole,
 * keeping those whose part, with the others at their window bounds, can
 * still reach the threshold, then settles those facts, the others probed
 * (or, for a prefix of several lists, read whole once that is cheaper).
 * `restCount` is the others' postings in the window.
 */
export function scoreLoneSlot(w: WindowSearch, base: number, hi: number, lone: number, restCount: number): void {
  let restUb = 0;
  for (let s = 0; s < w.n; s++) if (w.essential[s] === 0) restUb += w.windowUb[s]!;
  const threshold = w.top.threshold;
  // A part at or below `floor` cannot lift its fact to the threshold,
  // with room to spare for rounding (settle decides exactly).
  const floor = !w.top.full ? 0 : Math.max(0, threshold / SLACK - restUb - threshold * (SLACK - 1));
  const survivors = w.prefix === lone && w.slots[lone]!.readers.length !== 1 ? bestSurvivors(w, base, hi, floor) : termSurvivors(w, base, hi, lone, floor);
  w.passed = 0;
  // A fact's probe of the prefix reads each of its lists (up to eight
  // completions): when the facts to settle would probe them more than
  // reading them whole costs, they are read whole, each fact's best part
  // kept, and settle looks the facts up.
  let probed = 0;
  let prefixWhole = false;
  for (let s = 0; s < w.n; s++) {
    if (s === lone || w.windowUb[s] === 0) continue;
    const lists = w.slots[s]!.readers.length;
    if (s === w.prefix && lists > 1 && PROBE * survivors * lists > w.slotCount[s]!) prefixWhole = true;
    else probed += lists;
  }
  if (prefixWhole) w.prefixKept = w.readBest(base, hi);
  // Newest first, as probes read down a window.
  for (let i = 0; i < survivors; i++) {
    const at = w.survivors[i]!;
    const d = base + at;
    for (let s = 0; s < w.n; s++) w.known[s] = 0;
    // One slot's part, added to 0: the very double of its contribution.
    w.known[lone] = 1;
    w.present[lone] = 1;
    w.contrib[lone] = w.survivorParts[i]!;
    w.settle(d, at, w.lengths[d]!);
  }
  if (w.prefixKept >= 0) w.clearBest(w.prefixKept);
  w.prefixKept = -1;
  // Many facts left to probe cost more than reading the others whole.
  if (PROBE * survivors * probed > restCount) {
    w.probeAgainAt = w.windowNo + w.retryGap;
    w.retryGap *= 2;
  }
}

/**
 * The lone slot is a term, or a prefix of one completion (read as a term
 * is): its postings whose part is above `floor`, newest first, into
 * `survivors` and `survivorParts`; returns how many. When even a
 * frequency of 1 at the term's least length cannot pass the floor, its
 * strong list (frequencies of 2 and more) holds every one that can.
 */
function termSurvivors(w: WindowSearch, base: number, hi: number, lone: number, floor: number): number {
  const slot = w.slots[lone]!;
  let reader: WindowReader | null = slot.readers[0]!;
  if (slot.strong !== null && slot.weakBound <= floor) {
    reader = slot.strong();
    reader?.bound(base, hi);
  }
  if (reader === null) return 0;
  w.collectInto.floor = floor;
  w.gateSlot = lone;
  return reader.read(base, hi, w.alive, w.tables[lone]!, slot.weight, w.avg, w.lengths, w.gate, w.collectInto, 0);
}

/**
 * The lone slot is a prefix of several completions: each fact's best part
 * (its most frequent completion's), those above `floor` kept, newest
 * first, into `survivors` and `survivorParts`; returns how many.
 */
function bestSurvivors(w: WindowSearch, base: number, hi: number, floor: number): number {
  const count = w.readBest(base, hi);
  let survivors = 0;
  for (let i = 0; i < count; i++) {
    const at = w.bestOffsets[i]!;
    if (w.bestParts[at]! > floor) w.survivors[survivors++] = at;
  }
  // Newest first (the lists' offsets interleave).
  w.survivors.subarray(0, survivors).sort().reverse();
  for (let i = 0; i < survivors; i++) w.survivorParts[i] = w.bestParts[w.survivors[i]!]!;
  w.clearBest(count);
  return survivors;
}

/**
 * Candidates would be most of what the window holds: scores every posting
 * of it, slot by slot in slot order (so each fact's sum is in scoreDoc's
 * order), passing over the blocks that cannot matter, and lists the facts
 * to offer as their sums are added. A fact's last part makes its final
 * sum, so listing each fact whose sum reaches the bar lists every fact
 * that can enter. In a dense window (`allCount` postings against its
 * ordinals) the bar is the threshold once k facts are held, so few are
 * listed (and the sums are cleared whole); else it is 0: every fact met is
 * listed, and cleared as it is offered.
 */
export function readWindowWhole(w: WindowSearch, base: number, hi: number, allCount: number): void {
  const size = hi - base + 1;
  const threshold = w.top.threshold;
  const bar = SCAN * allCount >= size && w.top.full ? threshold : 0;
  w.accumulateInto.floor = bar;
  const ownFirst = w.prefix >= 0 && w.own >= 0 && w.windowUb[w.own]! > 0;
  if (ownFirst) w.fillSlot(w.own, base, hi);
  // A prefix of one list, when no fact of the window can hold the word as
  // typed, adds its parts as a term does, last as scoreDoc sums it (it is
  // the last slot); else its lists are merged below.
  const prefixRead = w.prefix >= 0 && w.slots[w.prefix]!.readers.length === 1 && !ownFirst;
  let listed = 0;
  for (let s = 0; s < w.n; s++) {
    if ((s === w.prefix && !prefixRead) || w.windowUb[s] === 0) continue;
    const slot = w.slots[s]!;
    // One list per slot: a fact in a block's range holds the slot's word there or not at all.
    w.gateSlot = s;
    const gate = slot.readers.length === 1 ? w.gate : null;
    for (const reader of slot.readers) listed = reader.read(base, hi, w.alive, w.tables[s]!, slot.weight, w.avg, w.lengths, gate, w.accumulateInto, listed);
  }
  if (w.prefix >= 0 && !prefixRead && w.windowUb[w.prefix]! > 0) listed = addBestParts(w, base, hi, ownFirst, listed, bar);
  // Facts in a range some slot passed over cannot enter.
  for (let i = 0; i < w.passed; i++) w.scores.fill(0, Math.max(base, w.passedLo[i]!) - base, Math.min(hi, w.passedHi[i]!) - base + 1);
  w.passed = 0;
  // Offered in any order: the heap settles ties by id. What cannot enter
  // (TopK.prunable: below the threshold, or tied where the facts held
  // are newer) is not offered.
  const top = w.top;
  for (let i = 0; i < listed; i++) {
    const at = w.candidates[i]!;
    const score = w.scores[at]!;
    if (score > 0 && !top.prunable(score)) top.offer(base + at, score);
    w.isCandidate[at] = 0;
    w.scores[at] = 0;
  }
  if (bar > 0) w.scores.fill(0, 0, size);
}

/**
 * Adds the prefix's part to the window's sums: each fact's best
 * completion's, unless it holds the word as typed (`ownFirst`: the own
 * slot's frequencies are filled); lists each fact whose sum reaches
 * `bar`, after the `listed` already listed. Returns the new count listed.
 */
function addBestParts(w: WindowSearch, base: number, hi: number, ownFirst: boolean, listed: number, bar: number): number {
  const count = w.readBest(base, hi);
  const ownF = ownFirst ? w.freqs[w.own]! : null;
  for (let i = 0; i < count; i++) {
    const at = w.bestOffsets[i]!;
    if (ownF === null || ownF[at] === 0) w.scores[at]! += w.bestParts[at]!;
    w.bestParts[at] = 0;
    if (w.isCandidate[at] === 0 && w.scores[at]! >= bar) {
      w.isCandidate[at] = 1;
      w.candidates[listed++] = at;
    }
  }
  return listed;
}

/**
 * Few postings are the essential slots': every offset they hold is a
 * candidate, settled in turn, newest first, the non-essential slots
 * probed, strongest first, while the fact can still enter.
 */
export function scoreCandidates(w: WindowSearch, base: number, hi: number): void {
  let count = 0;
  for (let s = 0; s < w.n; s++) {
    if (w.essential[s] === 0 || w.windowUb[s] === 0) continue;
    w.fillSlot(s, base, hi);
    const list = w.offsets[s]!;
    for (let i = 0; i < w.counts[s]!; i++) {
      const at = list[i]!;
      if (w.isCandidate[at] === 0) {
        w.isCandidate[at] = 1;
        w.candidates[count++] = at;
      }
    }
  }
  w.candidates.subarray(0, count).sort().reverse();
  for (let i = 0; i < count; i++) w.isCandidate[w.candidates[i]!] = 0;
  for (let i = 0; i < count; i++) {
    const at = w.candidates[i]!;
    const d = base + at;
    const length = w.lengths[d]!;
    for (let s = 0; s < w.n; s++) {
      w.known[s] = w.essential[s]!;
      if (w.essential[s] === 0) continue;
      const f = w.filled[s] !== 0 ? w.freqs[s]![at]! : 0;
      w.present[s] = f > 0 ? 1 : 0;
      if (f > 0) w.contrib[s] = part(w.tables[s]!, w.slots[s]!.weight, f, length, w.avg);
    }
    w.settle(d, at, length);
  }
}
