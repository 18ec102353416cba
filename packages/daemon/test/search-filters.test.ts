// A filtered search is exact (docs/protocol.md, "Filters"): the index
// ranks the best k of the facts that pass, the same facts and scores as
// filtering every fact first and ranking what passed by brute force
// (helpers/reference-index.ts). Random facts with tags from a skewed set
// and times that follow their ids or not; random adds and removes (enough
// to renumber); random filters: none, one or two tags (some no fact has),
// windows of time, both; before and after an image round trip. A filtered
// list's pages (`listIds`), oldest or newest first, are every passing id
// past the cursor in that order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DocTerms, type IndexFilter, ResidentIndex, analyzeQuery, decodeImage, docTerms, encodeImage, tagKeys } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';
import { ReferenceIndex } from './helpers/reference-index.js';

const WORDS = Array.from({ length: 300 }, (_, i) => `word${i}`);
/** Tags as agents write them: the same tag in other cases and spacing, which filters take as one. */
const TAGS = ['work', 'Work', 'home', 'preference', ' Preference ', 'travel', 'health', 'ß-tag', 'SS-TAG', 'rare one', 'Rare  One'];
const ulid = (i: number) => `01ARZ3NDEK${String(i).padStart(16, '0')}`;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const DAY = 86_400_000;

function pick<T>(rand: () => number, items: readonly T[], skew = 2): T {
  return items[Math.floor(items.length * rand() ** skew)]!;
}

function randomDoc(rand: () => number, at: number): DocTerms {
  const words = Array.from({ length: 2 + Math.floor(rand() * 10) }, () => pick(rand, WORDS, 3));
  const tags = Array.from({ length: Math.floor(rand() * 3) }, () => pick(rand, TAGS));
  return docTerms({ content: words.join(' '), tags, createdAt: new Date(at).toISOString() });
}

function randomFilter(rand: () => number): IndexFilter {
  const f: { tags?: string[]; since?: number; until?: number } = {};
  const r = rand();
  if (r < 0.6) f.tags = tagKeys(Array.from({ length: 1 + Math.floor(rand() * 2) }, () => (rand() < 0.1 ? 'nobody-has-this' : pick(rand, TAGS))));
  if (r > 0.3) {
    const a = T0 + Math.floor(rand() * 100 * DAY);
    const b = a + Math.floor(rand() * 40 * DAY);
    if (rand() < 0.7) f.since = a;
    if (rand() < 0.7) f.until = b;
  }
  return f;
}

function randomQuery(rand: () => number): string {
  const q = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(rand, WORDS));
  return rand() < 0.2 ? `${q.join(' ')} word1*` : q.join(' ');
}

function roundTrip(index: ResidentIndex): ResidentIndex {
  return ResidentIndex.restore(decodeImage(Buffer.concat(encodeImage(index.snapshot()))));
}

/** Adds and removes facts at random on every index given; ids and times rise as facts arrive unless `shuffled` (as an import may bring them). */
function churn(rand: () => number, indexes: Array<ResidentIndex | ReferenceIndex>, docs: Map<string, DocTerms>, state: { next: number }, steps: number, shuffled: boolean): void {
  for (let i = 0; i < steps; i++) {
    if (docs.size > 0 && rand() < 0.35) {
      const ids = [...docs.keys()];
      const id = ids[Math.floor(rand() * ids.length)]!;
      for (const t of indexes) assert.equal(t instanceof ReferenceIndex ? t.remove(id) : t.remove(id, docs.get(id)!), true);
      docs.delete(id);
    } else {
      const n = state.next++;
      const at = shuffled ? T0 + Math.floor(rand() * 120 * DAY) : T0 + Math.floor((n * 120 * DAY) / 8000);
      const d = randomDoc(rand, at);
      const id = ulid(shuffled ? (n * 7919) % 100_003 : n);
      for (const t of indexes) assert.equal(t.add(id, d), true);
      docs.set(id, d);
    }
  }
}

function agree(index: ResidentIndex, oracle: ReferenceIndex, docs: Map<string, DocTerms>, rand: () => number, queries: number, ordered: boolean): void {
  for (let q = 0; q < queries; q++) {
    const text = randomQuery(rand);
    const filter = randomFilter(rand);
    const k = pick(rand, [1, 3, 10, 30, 100], 1);
    const what = `${text} ${JSON.stringify(filter)} k=${k}`;
    assert.deepEqual(index.search(analyzeQuery(text), k, filter), oracle.search(analyzeQuery(text), k, filter), what);
    const ids = [...docs.keys()];
    for (let i = 0; i < 5 && ids.length > 0; i++) {
      const id = ids[Math.floor(rand() * ids.length)]!;
      assert.equal(index.passes(id, filter), oracle.passes(id, filter), `passes ${id} ${JSON.stringify(filter)}`);
    }
  }
  // A filtered list's pages: every passing fact past `after`, in id order (up, or newest first down), when ordinals follow ids.
  const sorted = [...docs.keys()].sort();
  let listed = 0;
  for (let q = 0; q < 100; q++) {
    const filter = randomFilter(rand);
    const newest = q % 2 === 1;
    // A cursor a fact holds, or one between two ids (a fact since removed).
    const at = sorted[Math.floor(rand() * sorted.length)];
    const after = rand() < 0.4 || at === undefined ? undefined : rand() < 0.5 ? at : `${at.slice(0, -1)}${rand() < 0.5 ? '0' : 'Z'}`;
    const n = pick(rand, [1, 10, 101], 1);
    const page = index.listIds(filter, after, n, newest ? 'newest' : 'oldest');
    if (page === undefined) continue;
    listed++;
    const past = (id: string) => after === undefined || (newest ? id < after : id > after);
    const expected = (newest ? [...sorted].reverse() : sorted).filter((id) => past(id) && oracle.passes(id, filter)).slice(0, n);
    assert.deepEqual(page, expected, `list ${newest ? 'newest' : 'oldest'} first ${JSON.stringify(filter)} after ${after} n=${n}`);
  }
  if (ordered) assert.equal(listed, 100, 'an index whose ordinals follow ids lists every page');
  const counts = new Map(index.tagCounts().map((c) => [c.tag, c.count]));
  assert.deepEqual(counts, oracle.tagCounts());
}

describe('filtered search', () => {
  for (const shuffled of [false, true]) {
    test(`ranks exactly the facts that pass, times ${shuffled ? 'in any order' : 'following ids'}`, () => {
      const rand = random(shuffled ? 7 : 3);
      const index = new ResidentIndex();
      const oracle = new ReferenceIndex();
      const docs = new Map<string, DocTerms>();
      const state = { next: 0 };
      churn(rand, [index, oracle], docs, state, 8000, shuffled);
      agree(index, oracle, docs, rand, 400, !shuffled);
      const restored = roundTrip(index);
      agree(restored, oracle, docs, rand, 100, !shuffled);
      // Enough removes to renumber both, then more adds.
      for (const id of [...docs.keys()].filter(() => rand() < 0.7)) {
        assert.equal(index.remove(id, docs.get(id)!), true);
        assert.equal(restored.remove(id, docs.get(id)!), true);
        assert.equal(oracle.remove(id), true);
        docs.delete(id);
      }
      churn(rand, [index, restored, oracle], docs, state, 2000, shuffled);
      agree(index, oracle, docs, rand, 300, false);
      agree(restored, oracle, docs, rand, 100, false);
    });
  }

  test('a filter no fact passes finds nothing, and one every fact passes finds what no filter finds', () => {
    const rand = random(11);
    const index = new ResidentIndex();
    const oracle = new ReferenceIndex();
    churn(rand, [index, oracle], new Map(), { next: 0 }, 3000, false);
    for (let q = 0; q < 50; q++) {
      const query = analyzeQuery(randomQuery(rand));
      assert.deepEqual(index.search(query, 10, { tags: ['nobody-has-this'] }), []);
      assert.deepEqual(index.search(query, 10, { since: T0 + 1000 * DAY }), []);
      assert.deepEqual(index.search(query, 10, { since: T0, until: T0 }), []);
      assert.deepEqual(index.search(query, 10, { since: T0 - DAY, until: T0 + 1000 * DAY }), index.search(query, 10));
    }
  });
});
