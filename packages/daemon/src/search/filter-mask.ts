import type { TagLists } from './tag-lists.js';
import { lowerBound } from './typed-arrays.js';

/**
 * A filter as the index applies it: tags as keys (search/normal-form.ts),
 * times in milliseconds since the epoch, `since` inclusive and `until`
 * exclusive. Every part is optional; all must pass.
 */
export interface IndexFilter {
  tags?: readonly string[];
  since?: number;
  until?: number;
}

/**
 * What a filtered search reads instead of the index's liveness: a mask
 * (non-zero: the fact is live and passes) and the ordinals it can be
 * non-zero within, inclusive. Undefined `range`: nothing passes.
 */
export interface FilterMask {
  mask: Uint8Array;
  range: { lo: number; hi: number } | undefined;
}

/** What the mask is made from: the index's arrays, up to `count` ordinals. */
export interface FilterSource {
  count: number;
  alive: Uint8Array;
  /** Each ordinal's `createdAt`, in milliseconds. */
  created: Float64Array;
  /** Whether `created` never falls as ordinals rise: a time window is then a range of ordinals. */
  timeOrdered: boolean;
  tags: TagLists;
}

/** One mask serves every search (they run one at a time, synchronously); grown as indexes grow. */
let scratch = new Uint8Array(0);

/** The ordinals `lo..hi` whose time passes: all of them when times follow ordinals, else each checked. */
function timeRange(src: FilterSource, f: IndexFilter): { lo: number; hi: number; checkEach: boolean } {
  if (!src.timeOrdered) return { lo: 0, hi: src.count - 1, checkEach: f.since !== undefined || f.until !== undefined };
  const lo = f.since === undefined ? 0 : lowerBound(src.created, src.count, f.since);
  const hi = (f.until === undefined ? src.count : lowerBound(src.created, src.count, f.until)) - 1;
  return { lo, hi, checkEach: false };
}

/**
 * The mask of the facts that pass `f`. Without tags, and with times that
 * follow ordinals, it is the liveness itself within the window's range
 * (nothing is copied); else a scratch mask, set from the rarest tag's
 * list intersected with the others', or from every ordinal's time.
 */
export function filterMask(src: FilterSource, f: IndexFilter): FilterMask {
  const time = timeRange(src, f);
  const since = f.since ?? -Infinity;
  const until = f.until ?? Infinity;
  const passesTime = (ord: number) => !time.checkEach || (src.created[ord]! >= since && src.created[ord]! < until);
  if (time.lo > time.hi) return { mask: src.alive, range: undefined };
  const keys = f.tags ?? [];
  if (keys.length === 0 && !time.checkEach) return { mask: src.alive, range: { lo: time.lo, hi: time.hi } };
  if (scratch.length < src.count) scratch = new Uint8Array(Math.max(src.count, 2 * scratch.length));
  const mask = scratch;
  mask.fill(0, time.lo, time.hi + 1);
  let first = Infinity;
  let last = -1;
  const pass = (ord: number) => {
    mask[ord] = 1;
    if (ord < first) first = ord;
    last = ord;
  };
  if (keys.length === 0) {
    for (let ord = time.lo; ord <= time.hi; ord++) if (src.alive[ord] !== 0 && passesTime(ord)) pass(ord);
  } else {
    const lists = [];
    for (const key of keys) {
      const list = src.tags.get(key);
      if (list === undefined || list.live === 0) return { mask, range: undefined };
      lists.push(list);
    }
    lists.sort((a, b) => a.n - b.n);
    const rarest = lists[0]!;
    // A cursor per other list: every list rises, so each is walked once.
    const at = lists.map((l) => lowerBound(l.ords, l.n, time.lo));
    for (let i = at[0]!; i < rarest.n; i++) {
      const ord = rarest.ords[i]!;
      if (ord > time.hi) break;
      if (src.alive[ord] === 0 || !passesTime(ord)) continue;
      let all = true;
      for (let j = 1; j < lists.length && all; j++) {
        const other = lists[j]!;
        let k = at[j]!;
        while (k < other.n && other.ords[k]! < ord) k++;
        at[j] = k;
        all = k < other.n && other.ords[k] === ord;
      }
      if (all) pass(ord);
    }
  }
  return { mask, range: last < 0 ? undefined : { lo: first, hi: last } };
}
