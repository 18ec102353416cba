// Seeded randomness for the search bench: the corpus and the queries must be
// the same on every run and machine, so that figures from two runs compare
// the daemon, not two different data sets.

// mulberry32, the PRNG the test suites draw from: returns floats in [0, 1)
// (see packages/test-support/src/random.ts).
export { prng as mulberry32 } from '@memoryd/test-support';

/**
 * Derives an independent seed from a base seed and a label (an agent, a
 * purpose), so that adding agents or query streams never shifts another
 * stream's numbers. FNV-1a over the label, mixed with the seed.
 * @param {number} seed
 * @param {string} label
 */
export function deriveSeed(seed, label) {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * An integer in [min, max], both included.
 * @param {() => number} rand
 * @param {number} min
 * @param {number} max
 */
export function intBetween(rand, min, max) {
  return min + Math.floor(rand() * (max - min + 1));
}

/**
 * One element of `items`, uniformly.
 * @template T
 * @param {() => number} rand
 * @param {readonly T[]} items
 * @returns {T}
 */
export function pick(rand, items) {
  return /** @type {T} */ (items[Math.floor(rand() * items.length)]);
}

/**
 * A sampler of ranks 0…n-1 with the Zipf–Mandelbrot law
 * (P(rank r) ∝ 1/(r+1+q)^s): a few words are everywhere and most are rare,
 * as in real text; the offset `q` flattens the very head, for a list whose
 * most frequent words were taken out (they are the stop and common words).
 * Inverse-CDF by binary search over a precomputed table (≈16 steps per
 * draw for n = 40k).
 * @param {number} n
 * @param {number} s the exponent; ≈1 for English
 * @param {number} [q] the rank offset; 0 is plain Zipf
 * @returns {(rand: () => number) => number}
 */
export function zipfSampler(n, s, q = 0) {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) {
    total += 1 / Math.pow(r + 1 + q, s);
    cdf[r] = total;
  }
  for (let r = 0; r < n; r++) cdf[r] /= total;
  return (rand) => {
    const u = rand();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (/** @type {number} */ (cdf[mid]) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
