/**
 * How many edits turn `a` into `b`: inserting, deleting or replacing a
 * character, or swapping two neighbours (`serach` → `search` is one), each
 * one edit, and no substring edited twice (the optimal string alignment
 * distance).
 */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  // Row i, column j: the distance between the first i characters of a and the first j of b.
  const d: number[] = Array.from({ length: (a.length + 1) * width }, (_, k) => (k < width ? k : k % width === 0 ? k / width : 0));
  const at = (i: number, j: number) => d[i * width + j]!;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate `word` most likely stands for, or undefined when none is
 * close: at most 2 edits away, and at most a third of the word's length
 * (rounded up), so that a short word does not suggest anything at all.
 * On a tie the earlier candidate wins: one suggestion, never a list.
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.ceil(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** `; did you mean "X"?` after a sentence, or nothing when no candidate is close. */
export function didYouMean(word: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => JSON.stringify(s)): string {
  const guess = nearest(word, candidates);
  return guess === undefined ? '' : `; did you mean ${quote(guess)}?`;
}
