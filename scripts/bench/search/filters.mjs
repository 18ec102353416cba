// The filters of `bench:search --filters` (issue 40): tags drawn from a
// skewed set onto the Zipf corpus, and the filters timed, each passing a
// known share of the searched agent's facts.

import { zipfSampler } from './random.mjs';

/** A tag on about half of the facts. */
export const HALF_TAG = 'half';
/** A tag on about 1% of the facts. */
export const RARE_TAG = 'one-pct';
/** The rest of the skewed set: 20 tags, Zipf-drawn, on 30% of facts. */
const SKEWED = Array.from({ length: 20 }, (_, i) => `topic-${String(i).padStart(2, '0')}`);
const skewedRank = zipfSampler(SKEWED.length, 1);

/**
 * A fact's tags: `half` with probability 1/2, `one-pct` with 1/100, and on
 * 30% of facts one of 20 topics (plain Zipf: the first on about a quarter
 * of those). None may come out: then the fact has no tags.
 * @param {() => number} rand
 * @returns {string[]}
 */
export function drawTags(rand) {
  const tags = [];
  if (rand() < 0.5) tags.push(HALF_TAG);
  if (rand() < 0.01) tags.push(RARE_TAG);
  if (rand() < 0.3) tags.push(/** @type {string} */ (SKEWED[skewedRank(rand)]));
  return tags;
}

/**
 * The filters timed, as memory.search params: a tag on ~1% and on ~50%
 * of facts, the newest 10% by time (`since`: the createdAt of the fact at
 * 90% of the stream), and each tag with that window.
 * @param {string} newestTenthSince
 * @returns {Array<{name: string, about: string, params: {tags?: string[], since?: string}}>}
 */
export function benchFilters(newestTenthSince) {
  return [
    { name: 'tag-1%', about: `tags [${RARE_TAG}]: ~1% pass`, params: { tags: [RARE_TAG] } },
    { name: 'tag-50%', about: `tags [${HALF_TAG}]: ~50% pass`, params: { tags: [HALF_TAG] } },
    { name: 'newest-10%', about: 'since: the newest 10% pass', params: { since: newestTenthSince } },
    { name: 'tag-50%+newest', about: `tags [${HALF_TAG}] and the newest 10%: ~5% pass`, params: { tags: [HALF_TAG], since: newestTenthSince } },
    { name: 'tag-1%+newest', about: `tags [${RARE_TAG}] and the newest 10%: ~0.1% pass`, params: { tags: [RARE_TAG], since: newestTenthSince } },
  ];
}
