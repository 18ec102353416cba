// How a fused search ranks (embed/fusion.ts, docs/embeddings.md "Fusion"):
// the words on the scale of a match of the whole query, meaning on the
// scale of what chance gives among the agent's facts, half each; the
// chance maximum against an exact reference; and the order of what
// neither side singles out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chanceMaximum, fuse, MEANING_FROM, MEANING_TO, WORDS_WEIGHT } from '@memoryd/daemon';
import { prng } from '@memoryd/test-support';

/** The standard normal density and distribution function (erf by Abramowitz and Stegun 7.1.26, error < 1.5e-7). */
const density = (x: number) => Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);
function distribution(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** E[max of n standard normals] = ∫ x · n φ(x) Φ(x)^(n−1) dx, by the trapezoid rule. */
function exactMaximum(n: number): number {
  let sum = 0;
  const step = 0.001;
  for (let x = -10; x <= 10; x += step) sum += x * n * density(x) * distribution(x) ** (n - 1) * step;
  return sum;
}

/** A vector side of `count` facts whose cosines have this mean and deviation. */
const side = (hits: Array<[string, number]>, count = 1000, mean = 0, deviation = 0.05) => ({
  hits: hits.map(([id, score]) => ({ id, score })),
  cosines: new Map<string, number>(),
  count,
  mean,
  deviation,
});

describe('the chance maximum', () => {
  it('is within 0.03 of the exact expected maximum of n standard normals', () => {
    assert.equal(chanceMaximum(1), 0);
    for (const n of [2, 5, 10, 90, 400, 1000, 100_000]) {
      const exact = exactMaximum(n);
      assert.ok(Math.abs(chanceMaximum(n) - exact) < 0.03, `n ${n}: ${chanceMaximum(n)} against ${exact}`);
    }
  });
});

describe('fuse', () => {
  it('scores words as a share of a match of the whole query, meaning by how far it stands out, half each', () => {
    const chance = chanceMaximum(1000);
    // A cosine at MEANING_TO standard deviations above the chance maximum counts whole; at MEANING_FROM, nothing.
    const whole = 0.05 * (chance + MEANING_TO);
    const none = 0.05 * (chance + MEANING_FROM);
    const fused = fuse(
      { hits: [{ id: 'all-words', score: 6 }, { id: 'one-word', score: 2 }], fullMatch: 6 },
      { ...side([['meaning', whole], ['chance', none]]), cosines: new Map([['all-words', 0], ['one-word', 0]]) },
    );
    const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    assert.equal(score['all-words'], WORDS_WEIGHT);
    assert.equal(score['one-word'], WORDS_WEIGHT / 3);
    assert.ok(Math.abs(score['meaning']! - (1 - WORDS_WEIGHT)) < 1e-9);
    assert.equal(score['chance'], 0);
    // A fact that stands out in meaning as far as it can ties a match of the whole query.
    assert.deepEqual(fused.map((f) => f.id).slice(-1), ['chance']);
  });

  it('a fact matching more of the query than there is to match scores the whole of the words part, no more', () => {
    const [top] = fuse({ hits: [{ id: 'tagged', score: 9 }], fullMatch: 6 }, side([]));
    assert.equal(top?.score, WORDS_WEIGHT);
  });

  it('without a full-match score (SQL search), the best lexical hit stands in', () => {
    const fused = fuse({ hits: [{ id: 'a', score: 0.08 }, { id: 'b', score: 0.02 }], fullMatch: undefined }, side([]));
    assert.deepEqual(fused, [{ id: 'a', score: WORDS_WEIGHT }, { id: 'b', score: WORDS_WEIGHT / 4 }]);
  });

  it('what neither side singles out comes last, the closest in meaning first, then the later id', () => {
    const fused = fuse(
      { hits: [{ id: '01-word', score: 1 }], fullMatch: 10 },
      side([['02-near', 0.02], ['03-far', -0.05], ['04-nearer', 0.03], ['05-tie', 0.02]]),
    );
    assert.deepEqual(fused.map((f) => f.id), ['01-word', '04-nearer', '05-tie', '02-near', '03-far']);
    assert.deepEqual(fused.slice(1).map((f) => f.score), [0, 0, 0, 0]);
  });

  it('an embedder that carries no meaning leaves the lexical order as it is, nearly always', () => {
    const rand = prng(5);
    const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    let kept = 0;
    const trials = 200;
    for (let t = 0; t < trials; t++) {
      // 400 facts of pure noise cosines; 10 lexical hits of falling BM25.
      const cosines = Array.from({ length: 400 }, (_, i) => [`f${String(i).padStart(3, '0')}`, 0.05 * gauss()] as [string, number]);
      const lexical = cosines.slice(0, 10).map(([id], i) => ({ id, score: 10 - i }));
      const sorted = [...cosines].sort((a, b) => b[1] - a[1]);
      const fused = fuse(
        { hits: lexical, fullMatch: 20 },
        { ...side(sorted.slice(0, 30), 400), cosines: new Map(cosines.slice(0, 10)) },
      );
      if (fused.slice(0, 5).every((f, i) => f.id === lexical[i]!.id)) kept++;
    }
    // A chance cosine reaches the meaning part about as often as the maximum of 400 normals exceeds its mean less half a deviation.
    assert.ok(kept / trials > 0.6, `lexical top 5 kept in ${kept} of ${trials}`);
  });
});
