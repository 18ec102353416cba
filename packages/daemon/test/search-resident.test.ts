// The in-memory index against brute force: after random adds and removes
// (enough removes to renumber the facts and rebuild the word list), its
// search must give exactly what planning the query the same way and
// scoring every current fact gives, scores bit for bit; and an index
// loaded in one go (the words sorted once at the end) must answer alike.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Completion,
  type DocTerms,
  MAX_PREFIX_SCAN,
  ResidentIndex,
  analyzeQuery,
  compareCodePoints,
  docTerms,
  planPrefix,
  planTerms,
  scoreDoc,
} from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';

const WORDS = [
  'alpha', 'alphabet', 'alps', 'alpine', 'beta', 'bet', 'betting', 'gamma', 'delta', 'deploy', 'deployed', 'deploying',
  'deployment', 'epsilon', 'zeta', 'eta', 'theta', 'café', 'cafe', 'caffeine', 'v2.3', 'snake_case', 'user@example.com',
];
const PREFIXES = ['al', 'alp', 'alpha', 'be', 'bet', 'de', 'depl', 'deploy', 'ca', 'caf', 'caff', 'et', 'the', 'sn', 'v2', 'us'];

interface Doc {
  id: string;
  terms: DocTerms;
}

function randomDoc(rand: () => number, id: string): Doc {
  const length = 1 + Math.floor(rand() * 10);
  const words = Array.from({ length }, () => WORDS[Math.floor(WORDS.length * rand() ** 2)]!);
  const tags = rand() < 0.3 ? [WORDS[Math.floor(rand() * WORDS.length)]!] : undefined;
  return { id, terms: docTerms({ content: words.join(' '), tags, createdAt: '2026-01-01T00:00:00.000Z' }) };
}

function randomQuery(rand: () => number): string {
  const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
  if (rand() < 0.5) words.push(`${PREFIXES[Math.floor(rand() * PREFIXES.length)]!}*`);
  return words.join(' ');
}

/** A ULID-shaped id (the index takes only ULIDs), ordered as `i`. */
const ulid = (i: number) => `01ARZ3NDEK${String(i).padStart(16, '0')}`;

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Plans the query over the current docs as the store would, then scores every doc and sorts. */
function bruteForce(docs: ReadonlyMap<string, Doc>, text: string, k: number) {
  const query = analyzeQuery(text);
  const all = [...docs.values()];
  const n = all.length;
  const length = all.reduce((s, d) => s + d.terms.length, 0);
  const df = (t: string) => all.filter((d) => d.terms.terms.has(t)).length;
  const plan = planTerms(query, n, length, df);
  if (plan === undefined) return [];
  if (query.prefix !== undefined) {
    const words = new Map<string, Completion>();
    for (const d of all) {
      for (const [surface, { term }] of d.terms.surfaces) {
        if (!surface.startsWith(query.prefix.surface)) continue;
        const c = words.get(surface) ?? { term, count: 0 };
        c.count++;
        words.set(surface, c);
      }
    }
    const found = [...words.keys()].sort(utf8Order).slice(0, MAX_PREFIX_SCAN).map((w) => words.get(w)!);
    planPrefix(plan, query, n, found);
  }
  return all
    .map((d) => ({ id: d.id, score: scoreDoc(d.terms, plan.model) }))
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1))
    .slice(0, k);
}

/** An index loaded the way store/resident-set.ts loads one: every fact in id order, then one sort of the words. */
function loaded(docs: ReadonlyMap<string, Doc>): ResidentIndex {
  const index = new ResidentIndex();
  index.beginLoad();
  for (const id of [...docs.keys()].sort()) index.add(id, docs.get(id)!.terms);
  index.endLoad();
  return index;
}

function assertSame(index: ResidentIndex, docs: ReadonlyMap<string, Doc>, text: string, k: number, what: string): void {
  const got = index.search(analyzeQuery(text), k);
  const want = bruteForce(docs, text, k);
  assert.deepEqual(got, want, `${what}: query ${JSON.stringify(text)} k ${k}`);
}

describe('ResidentIndex', () => {
  test('spreadIds gives current facts spread over the ordinals, oldest first, without repeats', () => {
    const rand = random(7);
    const index = new ResidentIndex();
    assert.deepEqual(index.spreadIds(64), []);
    const docs = Array.from({ length: 1_000 }, (_, i) => randomDoc(rand, ulid(i)));
    for (const doc of docs) index.add(doc.id, doc.terms);
    // Evenly spaced: ordinal i × 1,000 / 64 for each i.
    const ids = index.spreadIds(64);
    assert.deepEqual(ids, Array.from({ length: 64 }, (_, i) => ulid(Math.floor((i * 1_000) / 64))));
    // Removed facts are passed over for the next current one; none twice.
    for (let i = 0; i < 1_000; i++) if (i % 10 !== 9) index.remove(docs[i]!.id, docs[i]!.terms);
    const left = index.spreadIds(64);
    assert.equal(new Set(left).size, left.length);
    assert.deepEqual(left, [...left].sort());
    for (const id of left) assert.equal(Number(id.slice(10)) % 10, 9, id);
    // Fewer current facts than asked: each once.
    assert.equal(left.length, 64);
    assert.deepEqual(index.spreadIds(500).length, 100);
  });

  test('equals brute force through 4,000 random adds and removes', () => {
    const rand = random(23);
    const index = new ResidentIndex();
    const docs = new Map<string, Doc>();
    // Ids mostly arrive in order (the daemon's), sometimes not (an import of older facts).
    let next = 0;
    const newId = () => (rand() < 0.1 ? ulid(1_000_000 + Math.floor(rand() * 1e9)) : ulid(next++ * 1e10));
    for (let step = 0; step < 4000; step++) {
      // Grow to a few hundred facts, then churn (removes outnumber adds for a while: renumbering).
      const removeShare = step < 1500 ? 0.2 : step < 2500 ? 0.7 : 0.4;
      if (docs.size > 0 && rand() < removeShare) {
        const ids = [...docs.keys()];
        const id = ids[Math.floor(rand() * ids.length)]!;
        assert.equal(index.remove(id, docs.get(id)!.terms), true);
        docs.delete(id);
      } else {
        const doc = randomDoc(rand, newId());
        if (docs.has(doc.id)) continue;
        assert.equal(index.add(doc.id, doc.terms), true);
        docs.set(doc.id, doc);
      }
      assert.equal(index.facts, docs.size);
      if (step % 20 === 0) {
        const k = [1, 3, 10, 100][Math.floor(rand() * 4)]!;
        assertSame(index, docs, randomQuery(rand), k, `step ${step}`);
      }
    }
    assert.equal(index.length, [...docs.values()].reduce((s, d) => s + d.terms.length, 0));
  });

  test('an index loaded in one go answers as brute force, and keeps doing so under changes', () => {
    const rand = random(29);
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 600; i++) {
      const doc = randomDoc(rand, ulid(i));
      docs.set(doc.id, doc);
    }
    const index = loaded(docs);
    assert.equal(index.facts, 600);
    for (let q = 0; q < 300; q++) assertSame(index, docs, randomQuery(rand), [1, 5, 10, 50][q % 4]!, `loaded, query ${q}`);
    for (let i = 0; i < 400; i++) {
      const ids = [...docs.keys()];
      const id = ids[Math.floor(rand() * ids.length)]!;
      index.remove(id, docs.get(id)!.terms);
      docs.delete(id);
      const doc = randomDoc(rand, ulid(600 + i));
      index.add(doc.id, doc.terms);
      docs.set(doc.id, doc);
      if (i % 10 === 0) assertSame(index, docs, randomQuery(rand), 10, `changed ${i}`);
    }
  });

  test('replaying a change it already holds changes nothing', () => {
    const rand = random(31);
    const a = randomDoc(rand, ulid(1));
    const b = randomDoc(rand, ulid(2));
    const index = new ResidentIndex();
    assert.equal(index.add(a.id, a.terms), true);
    assert.equal(index.add(a.id, a.terms), false);
    assert.equal(index.remove(b.id, b.terms), false);
    assert.equal(index.facts, 1);
    assertSame(index, new Map([[a.id, a]]), 'alpha beta de*', 10, 'after replays');
  });

  test('a query with more words than lists are read for scores them all', () => {
    const rand = random(37);
    const docs = new Map<string, Doc>();
    const index = new ResidentIndex();
    const vocabulary = Array.from({ length: 60 }, (_, i) => `word${i}`);
    for (let i = 0; i < 300; i++) {
      const words = Array.from({ length: 3 + Math.floor(rand() * 10) }, () => vocabulary[Math.floor(rand() * vocabulary.length)]!);
      const doc = { id: ulid(i), terms: docTerms({ content: words.join(' '), createdAt: '2026-01-01T00:00:00.000Z' }) };
      docs.set(doc.id, doc);
      index.add(doc.id, doc.terms);
    }
    assertSame(index, docs, vocabulary.slice(0, 45).join(' '), 20, 'long query');
    assertSame(index, docs, `${vocabulary.slice(10, 50).join(' ')} wor*`, 20, 'long query with a prefix');
  });

  test('completions follow every add and remove (they are kept between changes)', () => {
    const index = new ResidentIndex();
    const docs = new Map<string, Doc>();
    const put = (i: number, text: string) => {
      const doc = { id: ulid(i), terms: docTerms({ content: text, createdAt: '2026-01-01T00:00:00.000Z' }) };
      docs.set(doc.id, doc);
      index.add(doc.id, doc.terms);
    };
    put(1, 'alpha beta');
    put(2, 'alpine gamma');
    for (let i = 10; i < 20; i++) put(i, 'delta epsilon');
    assertSame(index, docs, 'gamma al*', 10, 'before');
    assertSame(index, docs, 'gamma al*', 10, 'again, unchanged');
    put(3, 'alps alps delta');
    assertSame(index, docs, 'gamma al*', 10, 'after an add brings a new completion');
    index.remove(ulid(2), docs.get(ulid(2))!.terms);
    docs.delete(ulid(2));
    assertSame(index, docs, 'gamma al*', 10, 'after a remove takes one away');
  });

  test('compareCodePoints is UTF-8 byte order', () => {
    const rand = random(41);
    const pool = ['a', 'z', 'é', '\u{ff21}', '\u{e000}', '\u{fffd}', '\u{10000}', '\u{1f600}', '\u{10ffff}', '\u{d7ff}'];
    for (let i = 0; i < 5000; i++) {
      const make = () => Array.from({ length: Math.floor(rand() * 4) }, () => pool[Math.floor(rand() * pool.length)]!).join('');
      const a = make();
      const b = make();
      assert.equal(Math.sign(compareCodePoints(a, b)), Math.sign(utf8Order(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
  });
});
