import { saturation } from './bm25.js';

/** Frequencies below this, with lengths below {@link TABLE_LENGTH}, have their part kept in a slot's table. */
export const TABLE_F = 8;
export const TABLE_LENGTH = 64;

/** A table for {@link part}: every entry unset (NaN). */
export function newPartTable(): Float64Array {
  return new Float64Array(TABLE_F * TABLE_LENGTH).fill(NaN);
}

/**
 * `weight × saturation(f, length, avg)`, the very expression scoreDoc
 * evaluates (so the same double), looked up in the slot's table when the
 * pair fits it: common frequencies and lengths repeat across facts, and
 * one search has one weight and one average length per slot.
 */
export function part(table: Float64Array, weight: number, f: number, length: number, avg: number): number {
  if (f >= TABLE_F || length >= TABLE_LENGTH) return weight * saturation(f, length, avg);
  const at = f * TABLE_LENGTH + length;
  let v = table[at]!;
  if (v !== v) table[at] = v = weight * saturation(f, length, avg);
  return v;
}

/**
 * {@link part} of each of `count` postings, into `parts[i]`: frequency
 * `fs[i]`, length `lengths[base + offsets[i]]`. One call for a block's
 * postings, not one a posting: a search reads many, and a fresh daemon
 * runs its first searches before V8 has compiled this (a call is one of
 * the costliest steps then).
 */
export function partsOf(
  table: Float64Array,
  weight: number,
  avg: number,
  fs: Uint32Array,
  offsets: Uint32Array,
  lengths: Uint32Array,
  base: number,
  count: number,
  parts: Float64Array,
): void {
  for (let i = 0; i < count; i++) {
    const f = fs[i]!;
    const length = lengths[base + offsets[i]!]!;
    if (f < TABLE_F && length < TABLE_LENGTH) {
      const at = f * TABLE_LENGTH + length;
      let v = table[at]!;
      if (v !== v) table[at] = v = weight * saturation(f, length, avg);
      parts[i] = v;
    } else parts[i] = weight * saturation(f, length, avg);
  }
}
