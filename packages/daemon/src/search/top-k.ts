import { saturation } from './bm25.js';

/** One posting: a fact holding a term, with its weighted frequency and length. */
export interface Posting {
  id: string;
  frequency: number;
  length: number;
}

/**
 * A term's postings in the index's order: frequency descending, then
 * length ascending, then newest first. Under that order the BM25 part of
 * every posting still to come is bounded by the current one's (see
 * {@link headBound}).
 */
export interface PostingSource {
  /** Up to `max` next postings; an empty array once the list is done. */
  read(max: number): Promise<Posting[]>;
  /** Releases the source (an iterator); called once, whatever happened. */
  close(): Promise<void>;
}

/** A posting list and what its term weighs: idf, times PREFIX_WEIGHT for a prefix completion. */
export interface WeightedList {
  source: PostingSource;
  weight: number;
}

/** A fact and its score. */
export interface Hit {
  id: string;
  score: number;
}

/** First read of a list: most searches stop within a handful of postings. */
const FIRST_READ = 16;
/** Reads grow 4× at a time up to this many postings. */
const MAX_READ = 1024;
/** Float sums of the same parts in another order may differ in the last bits. */
const SLACK = 1 + 1e-9;

class Cursor {
  #buffer: Posting[] = [];
  #at = 0;
  #next = FIRST_READ;
  done = false;

  constructor(
    readonly list: WeightedList,
    private readonly avgLength: number,
  ) {}

  head(): Posting | undefined {
    return this.#buffer[this.#at];
  }

  /** Reads more postings when the buffer is used up. */
  async fill(): Promise<void> {
    if (this.done || this.#at < this.#buffer.length) return;
    this.#buffer = await this.list.source.read(this.#next);
    this.#at = 0;
    this.#next = Math.min(this.#next * 4, MAX_READ);
    if (this.#buffer.length === 0) this.done = true;
  }

  take(): Posting {
    return this.#buffer[this.#at++]!;
  }

  /**
   * The most any posting from the head on can add to a score. Postings
   * with the head's frequency come no shorter than the head; postings with
   * a lower frequency have at most frequency - 1 (weights are integers) and
   * length at least 0. Saturation rises with frequency and falls with
   * length, so the larger of those two values bounds them all.
   */
  bound(): number {
    const p = this.head();
    if (p === undefined) return 0;
    let s = saturation(p.frequency, p.length, this.avgLength);
    if (p.frequency > 1) s = Math.max(s, saturation(p.frequency - 1, 0, this.avgLength));
    return this.list.weight * s;
  }
}

function better(a: Hit, b: Hit): boolean {
  return a.score > b.score || (a.score === b.score && a.id > b.id);
}

/** Inserts into `top` (best first), keeping at most `k`. */
function offer(top: Hit[], hit: Hit, k: number): void {
  if (top.length === k && !better(hit, top[k - 1]!)) return;
  let lo = 0;
  let hi = top.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (better(top[mid]!, hit)) lo = mid + 1;
    else hi = mid;
  }
  top.splice(lo, 0, hit);
  if (top.length > k) top.pop();
}

/**
 * The `k` best facts, best first (ties newest first), exactly as scoring
 * every fact of the lists would rank them, while reading as few postings
 * as it can: a threshold algorithm with MaxScore's pruning.
 *
 * Each fact met in a list is scored whole at once by `score` (which reads
 * the fact; `undefined` when it is no longer current). The k-th best score
 * so far is the threshold. A fact not met yet scores at most the sum of
 * every list's {@link Cursor.bound}; once that sum falls below the
 * threshold, no unseen fact can enter and the search stops. Lists whose
 * bounds, summed from the smallest, stay below the threshold can only hold
 * unseen facts that cannot enter unless they also sit in another list, so
 * they are no longer read; only the remaining ("essential") lists are, the
 * one with the highest bound first. Rare terms have high bounds and short
 * lists; the long lists of common words are the first to drop out.
 */
export async function topK(
  lists: readonly WeightedList[],
  k: number,
  avgLength: number,
  score: (id: string) => number | undefined,
): Promise<Hit[]> {
  const cursors = lists.map((l) => new Cursor(l, avgLength));
  const top: Hit[] = [];
  const seen = new Set<string>();
  try {
    await Promise.all(cursors.map((c) => c.fill()));
    for (;;) {
      const live = cursors.filter((c) => !c.done);
      if (live.length === 0 || k === 0) break;
      const bounds = live.map((c) => ({ c, bound: c.bound() }));
      let pick: Cursor | undefined;
      if (top.length < k) {
        pick = bounds.reduce((x, y) => (y.bound > x.bound ? y : x)).c;
      } else {
        const threshold = top[k - 1]!.score;
        bounds.sort((x, y) => x.bound - y.bound);
        let sum = 0;
        let best = -1;
        for (const { c, bound } of bounds) {
          sum += bound;
          if (sum * SLACK >= threshold && bound > best) {
            best = bound;
            pick = c;
          }
        }
      }
      if (pick === undefined) break;
      const posting = pick.take();
      await pick.fill();
      if (seen.has(posting.id)) continue;
      seen.add(posting.id);
      const s = score(posting.id);
      if (s !== undefined && s > 0) offer(top, { id: posting.id, score: s }, k);
    }
  } finally {
    const closed = await Promise.allSettled(lists.map((l) => l.source.close()));
    const failed = closed.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  }
  return top;
}
