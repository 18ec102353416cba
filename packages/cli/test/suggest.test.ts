// The edit distance behind memoryctl's "did you mean" (issue 39): a swap of
// neighbours is one edit (optimal string alignment), and a guess is made
// only when it is close for the word's length, never more than one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { didYouMean, editDistance, nearest } from '../dist/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    for (const [a, b, d] of [
      ['', '', 0],
      ['', 'abc', 3],
      ['search', 'search', 0],
      ['serach', 'search', 1],
      ['limt', 'limit', 1],
      ['lismt', 'limit', 2],
      ['kitten', 'sitting', 3],
      // Optimal string alignment, not Damerau-Levenshtein: no substring is edited twice.
      ['ca', 'abc', 3],
    ] as const) {
      assert.equal(editDistance(a, b), d, `${a} → ${b}`);
      assert.equal(editDistance(b, a), d, `${b} → ${a}`);
    }
  });
});

describe('nearest', () => {
  const commands = ['status', 'agents', 'add', 'search', 'list', 'stop'];
  it('guesses within 2 edits and a third of the word, the first of a tie, else nothing', () => {
    assert.equal(nearest('serach', commands), 'search');
    assert.equal(nearest('ad', commands), 'add');
    assert.equal(nearest('stat', commands), 'status', 'status and stop are both 2 away: the first wins');
    assert.equal(nearest('lsit', commands), 'list');
    assert.equal(nearest('sarch', commands), 'search');
    assert.equal(nearest('x', commands), undefined);
    assert.equal(nearest('frobnicate', commands), undefined);
    assert.equal(nearest('sxxrch', commands), 'search', '2 edits');
    assert.equal(nearest('sxxxch', commands), undefined, '3 edits');
    assert.equal(nearest('lst', commands), 'list');
    assert.equal(nearest('xt', commands), undefined, 'a third of 2 letters is 1 edit');
  });
  it('says it as a clause', () => {
    assert.equal(didYouMean('serach', commands), '; did you mean "search"?');
    assert.equal(didYouMean('limt', ['limit'], (n) => `--${n}`), '; did you mean --limit?');
    assert.equal(didYouMean('zzz', commands), '');
  });
});
