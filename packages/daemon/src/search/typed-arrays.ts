/** The typed arrays the in-memory index is made of. */
export type IndexArray = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * `a` if it has room for `n`, else a copy of it with room for exactly `n`,
 * the rest as `make` leaves it (zero, or what it fills in).
 */
export function atLeast<T extends IndexArray>(a: T, n: number, make: (n: number) => T): T {
  if (a.length >= n) return a;
  const b = make(n);
  b.set(a);
  return b;
}

/** Swaps entries `i` and `j` of two parallel arrays: ids and their values. */
export function swapPair(ids: Uint32Array, values: Float64Array, i: number, j: number): void {
  const id = ids[i]!;
  ids[i] = ids[j]!;
  ids[j] = id;
  const value = values[i]!;
  values[i] = values[j]!;
  values[j] = value;
}

/** The first index in `a[0..n)` whose value is at least `x` (`a` ascending). */
export function lowerBound(a: Float64Array | Uint32Array, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
