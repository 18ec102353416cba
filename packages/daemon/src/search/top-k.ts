import { saturation } from './bm25.js';
import { Cursor, type WeightedList, closeAll } from './postings.js';

/** A fact and its score. */
export interface Hit {
  id: string;
  score: number;
}

/** Tuning of {@link topK}; the defaults are what memory.search uses. */
export interface TopKOptions {
  /**
   * At most this many postings are read. A query whose lists would need
   * more to settle its k best exactly (only words that most facts hold)
   * gets the best of what was read: the highest-impact postings of each
   * list, the facts scored whole.
   */
  maxPostings?: number;
  /** Facts scored whole, at most, to settle the undecided ones at the end. */
  maxReads?: number;
}

const DEFAULTS: Required<TopKOptions> = { maxPostings: 3000, maxReads: 64 };

/** Float sums of the same parts in another order may differ in the last bits. */
const SLACK = 1 + 1e-9;
/** Lists of one search, at most (a candidate's lists are bits of a number). */
export const MAX_LISTS = 30;

interface Candidate {
  id: string;
  /** Its length (the same in every posting of it). */
  length: number;
  /** What the lists it was met in give it: a lower bound of its score (its score once `complete`). */
  known: number;
  /** What the completions gave it, unless it holds the prefix's own word (not known yet). */
  maybe: number;
  /** Bits of the lists where it is decided: met in them, or probed. */
  met: number;
  /** Bits of the lists that hold it. */
  holds: number;
  /** Scored whole: `known` is its score. */
  complete: boolean;
}

/** Every this many postings (or a quarter of the candidates, if more), the stopping rule is checked. */
const CHECK_EVERY = 64;
/** Probed frequencies per list, at most: lists are probed only once their head is this low. */
const MAX_PROBES = 4;
/** Facts decided by probing at one check, at most (the most likely to enter first). */
const MAX_RESOLVE = 256;

/**
 * The `k` best facts, best first (ties newest first), as scoring every
 * fact of the lists would rank them, reading as few postings and facts as
 * it can: Fagin's threshold algorithm without random access (NRA) with
 * MaxScore's pruning, within a budget of postings.
 *
 * Every posting gives its fact's exact part for that list (the key holds
 * frequency and length), so facts are not read while lists are. Each fact
 * met has a lower bound (its parts so far) and an upper bound (that plus
 * the {@link Cursor.bound} of every list it was not met in yet: it can only
 * come later there). The threshold is the k-th best lower bound. A fact
 * not met yet scores at most the sum of all bounds; while that reaches the
 * threshold, the list with the highest bound is read (rare terms first:
 * high bounds, short lists), else facts first met are skipped and the
 * lists are read in turn to decide the facts already met. Facts whose
 * upper bound falls below the threshold are dropped. When no new fact can
 * enter and at most `maxReads` are undecided, those are scored whole by
 * `score` (which reads the fact; `undefined`: no longer current), which
 * ends the search; so does the budget (see {@link TopKOptions}). The k
 * chosen are scored whole for the final order.
 */
export async function topK(
  lists: readonly WeightedList[],
  k: number,
  avgLength: number,
  score: (id: string) => number | undefined,
  options: TopKOptions = {},
): Promise<Hit[]> {
  const { maxPostings, maxReads } = { ...DEFAULTS, ...options };
  if (lists.length > MAX_LISTS) throw new Error(`topK takes at most ${MAX_LISTS} lists, got ${lists.length}`);
  const cursors = lists.map((l, i) => new Cursor(l, 1 << i, avgLength));
  for (const c of cursors) {
    const own = cursors.find((o) => o.list === c.list.excludes);
    if (own !== undefined) [c.voidedBy, own.voids] = [own, c];
  }
  const candidates = new Map<string, Candidate>();
  const gone = new Set<string>();
  let live = cursors;

  /**
   * The most `x` (undefined: a fact not met yet) may still get from the
   * lists it was not met in. A fact gets either the prefix's own word or
   * its completions, never both: such a pair adds the larger of its two
   * bounds, and nothing once either was met.
   */
  const rest = (x: Candidate | undefined): number => {
    if (x?.complete === true) return 0;
    const met = x?.met ?? 0;
    let more = 0;
    for (const c of live) {
      if ((met & c.bit) !== 0) continue;
      const own = c.voidedBy;
      if (own !== undefined) {
        // The completions: nothing for a fact holding the word itself;
        // otherwise the word or its completions, whichever bounds higher.
        if (((x?.holds ?? 0) & own.bit) !== 0) continue;
        more += own.done || (met & own.bit) !== 0 ? c.cached : Math.max(c.cached, own.cached);
      } else if (c.voids === undefined || c.voids.done || (met & c.voids.bit) !== 0) {
        more += c.cached;
      }
      // else: counted with its completions above.
    }
    return more;
  };

  /** Once the prefix's own list is done without it, a fact's completion part is sure. */
  const settleMaybe = (x: Candidate, completions: Cursor): void => {
    const own = completions.voidedBy;
    if (x.maybe > 0 && own !== undefined && (own.done || (x.met & own.bit) !== 0) && (x.holds & own.bit) === 0) {
      x.known += x.maybe;
      x.maybe = 0;
    }
  };

  /** Scores a candidate whole; one no longer current is dropped for good. */
  const complete = (x: Candidate): void => {
    const s = score(x.id);
    if (s === undefined) {
      gone.add(x.id);
      candidates.delete(x.id);
      return;
    }
    x.known = s;
    x.maybe = 0;
    x.complete = true;
  };

  /**
   * Decides a candidate in every list it was not met in by probing those
   * lists, without reading it: true when its score is then known. False
   * when a list cannot be probed (the completions, or a head whose
   * frequency is too high to probe every lower one).
   */
  const resolve = (x: Candidate): boolean => {
    if (x.complete) return true;
    let whole = true;
    for (const c of live) {
      if ((x.met & c.bit) !== 0 || c.voidedBy !== undefined) continue;
      const head = c.head();
      const probe = c.list.source.probe;
      if (head === undefined || probe === undefined || head.frequency > MAX_PROBES) {
        whole = false;
        continue;
      }
      // Not met yet, so its posting, if any, is at or after the head.
      for (let f = head.frequency; f >= 1; f--) {
        if (!probe(x.id, f, x.length)) continue;
        x.known += c.list.weight * saturation(f, x.length, avgLength);
        x.holds |= c.bit;
        if (c.voids !== undefined) x.maybe = 0;
        break;
      }
      x.met |= c.bit;
    }
    for (const c of live) {
      if (c.voidedBy === undefined || (x.met & c.bit) !== 0) continue;
      settleMaybe(x, c);
      // The completions give nothing to a fact holding the word itself.
      if ((x.holds & c.voidedBy.bit) !== 0) x.met |= c.bit;
      else whole = false;
    }
    for (const c of cursors) if (c.voidedBy !== undefined) settleMaybe(x, c);
    if (whole) x.complete = true;
    return whole;
  };

  let chosen: Candidate[] = [];
  let failure: unknown;
  try {
    await Promise.all(cursors.map((c) => c.fill()));
    live = cursors.filter((c) => !c.done);
    let threshold = 0;
    let sinceCheck = CHECK_EVERY;
    let taken = 0;
    let turn = 0;
    // Once no new fact can enter: the lists the undecided facts wait on.
    let waiting: Cursor[] = [];
    for (;;) {
      const budgetSpent = taken >= maxPostings;
      if (live.length === 0 || budgetSpent || sinceCheck >= Math.max(CHECK_EVERY, candidates.size >> 2)) {
        sinceCheck = 0;
        for (const c of cursors) if (c.voidedBy !== undefined) for (const x of candidates.values()) settleMaybe(x, c);
        // Knowing the k best exactly raises the threshold early (probes are cheap).
        for (const x of best(candidates.values(), k)) resolve(x);
        chosen = best(candidates.values(), k);
        threshold = chosen.length < k ? 0 : chosen[k - 1]!.known;
        const inside = new Set(chosen);
        const open: Array<{ x: Candidate; upper: number }> = [];
        for (const [id, x] of candidates) {
          if (inside.has(x)) continue;
          const more = rest(x);
          const upper = x.known + x.maybe + more;
          // Below the threshold, or fully known and still not among the k
          // best: the threshold only rises, so it can never come back.
          if (chosen.length === k && (upper * SLACK < threshold || more === 0)) {
            gone.add(id);
            candidates.delete(id);
          } else open.push({ x, upper });
        }
        const room = chosen.length < k || rest(undefined) * SLACK >= threshold;
        if (live.length === 0 || budgetSpent || !room) {
          // No new fact can enter (or the budget is spent): decide the facts
          // met by probing the lists they were not met in.
          open.sort((a, b) => b.upper - a.upper);
          for (const { x, upper } of open.slice(0, MAX_RESOLVE)) if (upper * SLACK >= threshold) resolve(x);
          const undecided = open.filter(({ x }) => !x.complete && (x.known + x.maybe + rest(x)) * SLACK >= threshold);
          if (live.length === 0 || budgetSpent || undecided.length <= maxReads) {
            // Read whole the few that probes cannot decide, the most likely
            // to enter first. The chosen are read at the end anyway; scored
            // whole now, none can be pushed out by a settled fact.
            for (const x of chosen) if (!resolve(x)) complete(x);
            for (const { x } of undecided.slice(0, maxReads)) complete(x);
            chosen = best(candidates.values(), k);
            break;
          }
          // Too many to read: read on in the lists probes cannot decide.
          waiting = live.filter((c) => c.list.source.probe === undefined || (c.head()?.frequency ?? 0) > MAX_PROBES);
        }
      }
      const room = chosen.length < k || rest(undefined) * SLACK >= threshold;
      let pick = live[0]!;
      if (room) for (const c of live) pick = c.cached > pick.cached ? c : pick;
      else {
        const from = waiting.filter((c) => !c.done);
        pick = (from.length > 0 ? from : live)[turn++ % (from.length > 0 ? from.length : live.length)]!;
      }
      const posting = pick.head()!;
      if (pick.step()) {
        await pick.fill();
        if (pick.done) live = live.filter((c) => c !== pick);
      }
      taken++;
      sinceCheck++;
      if (gone.has(posting.id)) continue;
      let x = candidates.get(posting.id);
      if (x === undefined) {
        if (!room) continue;
        x = { id: posting.id, length: posting.length, known: 0, maybe: 0, met: 0, holds: 0, complete: false };
        candidates.set(posting.id, x);
      } else if (x.complete || (x.met & pick.bit) !== 0) continue;
      x.met |= pick.bit;
      x.holds |= pick.bit;
      const part = pick.list.weight * saturation(posting.frequency, posting.length, avgLength);
      if (pick.voidedBy !== undefined) {
        // Completions: sure only once it is known not to hold the word itself.
        if ((x.met & pick.voidedBy.bit) === 0) x.maybe = part;
        settleMaybe(x, pick);
      } else {
        x.known += part;
        // Holding the prefix's own word voids what its completions gave.
        if (pick.voids !== undefined) x.maybe = 0;
      }
    }
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    // A read asked for ahead fails or not; only the close after it counts.
    await Promise.allSettled(cursors.map((c) => c.settle()));
    // A failure of the search itself wins over one of closing after it.
    await closeAll(lists.map((l) => l.source)).catch((err: unknown) => {
      if (failure === undefined) throw err;
    });
  }
  const top: Hit[] = [];
  for (const x of chosen) {
    // Read even when postings and probes settled the score: it must still be current.
    const s = score(x.id);
    if (s !== undefined && s > 0) top.push({ id: x.id, score: s });
  }
  return top.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The k candidates with the highest lower bounds (ties newest first). */
function best(candidates: Iterable<Candidate>, k: number): Candidate[] {
  const top: Candidate[] = [];
  for (const x of candidates) {
    if (top.length === k) {
      const last = top[k - 1]!;
      if (x.known < last.known || (x.known === last.known && x.id < last.id)) continue;
    }
    let at = top.length;
    while (at > 0 && (top[at - 1]!.known < x.known || (top[at - 1]!.known === x.known && top[at - 1]!.id < x.id))) at--;
    top.splice(at, 0, x);
    if (top.length > k) top.pop();
  }
  return top;
}
