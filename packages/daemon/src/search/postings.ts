import { saturation } from './bm25.js';

/** One posting: a fact holding a term, with its weighted frequency and length. */
export interface Posting {
  id: string;
  frequency: number;
  length: number;
}

/**
 * A term's postings in the index's order: frequency descending, then
 * length ascending. Under that order the BM25 part of every posting still
 * to come is bounded by the current one's (see {@link Cursor.bound}).
 */
export interface PostingSource {
  /** Up to `max` next postings; an empty array once the list is done. */
  read(max: number): Promise<Posting[]>;
  /** Releases the source (an iterator); called once, whatever happened. */
  close(): Promise<void>;
  /**
   * Whether the list holds this posting (a synchronous point lookup,
   * ~2 µs): how a fact met in other lists is looked up in this one without
   * reading the fact. Absent for the merged completions.
   */
  probe?(id: string, frequency: number, length: number): boolean;
}

/**
 * A posting list and what its term weighs: idf, times PREFIX_WEIGHT for
 * the completions of a prefix. A posting gives its fact exactly
 * `weight` × saturation(frequency, length) from this list (the
 * completions count their best term, which comes first: see
 * {@link mergeSources}).
 */
export interface WeightedList {
  source: PostingSource;
  weight: number;
  /**
   * A list whose facts get nothing from this one: the completions of a
   * prefix give nothing to a fact holding the prefix's own word.
   */
  excludes?: WeightedList;
}


/** First read of a list: most searches stop within a handful of postings. */
const FIRST_READ = 16;
/** Reads grow 4× at a time up to this many postings. */
const MAX_READ = 1024;

/** Whether posting `a` comes before `b` in a list's order. */
export function postingBefore(a: Posting, b: Posting): boolean {
  if (a.frequency !== b.frequency) return a.frequency > b.frequency;
  if (a.length !== b.length) return a.length < b.length;
  return a.id < b.id;
}

/** A list being read: its buffered postings and the bound of its head. */
export class Cursor {
  #buffer: Posting[] = [];
  #at = 0;
  #next = FIRST_READ;
  #reads = 0;
  /** The next read, already asked for (from the second read on: the list is being read deeply). */
  #ahead: Promise<Posting[]> | undefined;
  done = false;
  /** {@link bound} of the current head, kept up to date by {@link fill} and {@link step}. */
  cached = 0;
  /** For the completions: the list of the prefix's own word, whose facts get nothing from them. */
  voidedBy: Cursor | undefined;
  /** For the list of the prefix's own word: the completions it voids. */
  voids: Cursor | undefined;

  constructor(
    readonly list: WeightedList,
    readonly bit: number,
    private readonly avgLength: number,
  ) {}

  head(): Posting | undefined {
    return this.#buffer[this.#at];
  }

  /** Reads more postings when the buffer is used up. */
  async fill(): Promise<void> {
    if (!this.done && this.#at >= this.#buffer.length) {
      const ahead = this.#ahead;
      this.#ahead = undefined;
      this.#buffer = await (ahead ?? this.list.source.read(this.#next));
      this.#at = 0;
      this.#next = Math.min(this.#next * 4, MAX_READ);
      this.#reads++;
      if (this.#buffer.length === 0) this.done = true;
      // Overlap LevelDB's next read with scoring this one.
      else if (this.#reads >= 2) {
        this.#ahead = this.list.source.read(this.#next);
        // Handled where it is awaited (fill or settle), not left to crash the process meanwhile.
        this.#ahead.catch(() => undefined);
      }
    }
    this.cached = this.bound();
  }

  /** Waits for a read asked for ahead, so the source can be closed. */
  async settle(): Promise<void> {
    await this.#ahead;
  }

  /** Moves past the head; true when the buffer is used up and {@link fill} must run. */
  step(): boolean {
    this.#at++;
    if (this.#at >= this.#buffer.length) return true;
    this.cached = this.bound();
    return false;
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

/**
 * One list of several, in the lists' order: the completions of a prefix
 * read as one term. A fact in two of them comes twice, first with its
 * higher frequency (its length is the same in both), and {@link topK}
 * uses only the first: the best completion, as scoreDoc counts it.
 */
export function mergeSources(sources: readonly PostingSource[]): PostingSource {
  // Each completion is read in its own growing steps: most are read only
  // a little way, however much the merged list is asked for.
  const heads = sources.map((source) => ({ source, buffer: [] as Posting[], at: 0, done: false, next: FIRST_READ }));
  let started = false;
  const refill = async (h: (typeof heads)[number]) => {
    h.buffer = await h.source.read(h.next);
    h.next = Math.min(h.next * 4, MAX_READ / 4);
    h.at = 0;
    if (h.buffer.length === 0) h.done = true;
  };
  return {
    async read(max) {
      if (!started) {
        started = true;
        await Promise.all(heads.map((h) => refill(h)));
      }
      const out: Posting[] = [];
      while (out.length < max) {
        let best: (typeof heads)[number] | undefined;
        for (const h of heads) {
          if (!h.done && (best === undefined || postingBefore(h.buffer[h.at]!, best.buffer[best.at]!))) best = h;
        }
        if (best === undefined) break;
        out.push(best.buffer[best.at++]!);
        if (best.at >= best.buffer.length) await refill(best);
      }
      return out;
    },
    close: () => closeAll(sources),
  };
}

/** Closes every source, each even when another fails; rejects with the first failure. */
export async function closeAll(sources: readonly PostingSource[]): Promise<void> {
  const closed = await Promise.allSettled(sources.map((s) => s.close()));
  const failed = closed.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
