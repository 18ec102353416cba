import { saturation } from './bm25.js';

/** Points a frontier keeps: a block's or list's bound costs 8 bytes a point. */
export const FRONT = 4;

/**
 * The (frequency, length) pairs no other pair of a set beats on both (a
 * higher frequency and a shorter fact), at most {@link FRONT} of them:
 * what a posting of the set can score at most, whatever the average
 * length is when a search asks, since BM25 rises with the frequency and
 * falls with the length. Kept as `FRONT` pairs in `into` from `at`,
 * frequency first, unused pairs with frequency 0. With more points than
 * room, neighbours merge into the pair that beats both (the higher
 * frequency with the shorter length): a looser bound, never a wrong one.
 */
export function setFrontier(fs: Uint32Array, lens: Uint32Array, n: number, into: Uint32Array, at: number): void {
  // Frequency descending, then length ascending; keep each pair shorter than all before it.
  const order: number[] = [];
  for (let i = 0; i < n; i++) order.push(i);
  order.sort((a, b) => fs[b]! - fs[a]! || lens[a]! - lens[b]!);
  const pf: number[] = [];
  const pl: number[] = [];
  for (const i of order) {
    if (pl.length > 0 && lens[i]! >= pl[pl.length - 1]!) continue;
    pf.push(fs[i]!);
    pl.push(lens[i]!);
  }
  while (pf.length > FRONT) {
    // Merge the neighbours closest in both: (f[j], l[j + 1]) beats both.
    let best = 0;
    let cost = Infinity;
    for (let j = 0; j + 1 < pf.length; j++) {
      const c = (pf[j]! - pf[j + 1]!) / pf[j]! + (pl[j]! - pl[j + 1]!) / pl[j]!;
      if (c < cost) {
        cost = c;
        best = j;
      }
    }
    pl[best] = pl[best + 1]!;
    pf.splice(best + 1, 1);
    pl.splice(best + 1, 1);
  }
  for (let j = 0; j < FRONT; j++) {
    into[at + 2 * j] = j < pf.length ? pf[j]! : 0;
    into[at + 2 * j + 1] = j < pl.length ? pl[j]! : 0;
  }
}

/** addToFrontier's pairs: typed arrays as a block's are, so setFrontier meets one kind (search-compiled-shapes.test.ts). */
const added = { fs: new Uint32Array(FRONT + 1), lens: new Uint32Array(FRONT + 1) };

/** Adds one pair to the frontier at `into[at..]`. */
export function addToFrontier(f: number, length: number, into: Uint32Array, at: number): void {
  const { fs, lens } = added;
  fs[0] = f;
  lens[0] = length;
  let n = 1;
  for (let j = 0; j < FRONT; j++) {
    const pf = into[at + 2 * j]!;
    if (pf === 0) break;
    const pl = into[at + 2 * j + 1]!;
    // Already beaten: nothing changes.
    if (pf >= f && pl <= length) return;
    fs[n] = pf;
    lens[n] = pl;
    n++;
  }
  setFrontier(fs, lens, n, into, at);
}

/** The most `weight × saturation` any pair of the frontier at `from[at..]` reaches (0: empty). */
export function frontierBound(from: Uint32Array, at: number, weight: number, avg: number): number {
  let best = 0;
  for (let j = 0; j < FRONT; j++) {
    const f = from[at + 2 * j]!;
    if (f === 0) break;
    const b = weight * saturation(f, from[at + 2 * j + 1]!, avg);
    if (b > best) best = b;
  }
  return best;
}
