// Dynamic pruning must never change an answer: at 100,000 facts of
// Zipf-distributed words (the most common word in most facts), after
// removals (dead postings in sealed blocks, lists rebuilt) and with some
// ids arriving out of order, MaxScore with block bounds gives exactly the
// facts and scores, bit for bit, of scoring every posting (the test
// oracle, helpers/reference-index.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DocTerms, ResidentIndex, analyzeQuery, docTerms } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';
import { ReferenceIndex } from './helpers/reference-index.js';

const VOCABULARY = 3000;
const words = Array.from({ length: VOCABULARY }, (_, i) => `w${i.toString(36)}`);
// Zipf (s = 1) by inverse CDF over the ranks.
const cdf = (() => {
  const weights = words.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  let run = 0;
  return weights.map((w) => (run += w / total));
})();
function zipfWord(rand: () => number): string {
  const u = rand();
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return words[lo]!;
}

const ulid = (i: number) => `01ARZ3NDEK${String(i).padStart(16, '0')}`;

/** The index under test and the oracle, given the same facts. */
class Paired {
  readonly index = new ResidentIndex();
  readonly oracle = new ReferenceIndex();
  readonly docs = new Map<string, DocTerms>();

  add(id: string, doc: DocTerms): void {
    this.index.add(id, doc);
    this.oracle.add(id, doc);
    this.docs.set(id, doc);
  }

  /** Removes the fact with `id` from both, if it is there. */
  removeIfThere(id: string): void {
    const gone = this.docs.get(id);
    if (gone === undefined) return;
    assert.equal(this.index.remove(id, gone), true);
    assert.equal(this.oracle.remove(id), true);
    this.docs.delete(id);
  }

  /** The index's k best for the query, checked against the oracle's. */
  search(query: ReturnType<typeof analyzeQuery>, k: number, what: string): ReturnType<ResidentIndex['search']> {
    const got = this.index.search(query, k);
    assert.deepEqual(got, this.oracle.search(query, k), what);
    return got;
  }
}

describe('MaxScore with block bounds', () => {
  test('equals exhaustive scoring on 3,000 random queries at 100,000 facts', () => {
    const rand = random(53);
    const p = new Paired();
    const { index, docs } = p;
    const texts: string[] = [];
    let next = 0;
    for (let i = 0; i < 100_000; i++) {
      const n = 8 + Math.floor(rand() * 13);
      const text = Array.from({ length: n }, () => zipfWord(rand)).join(' ');
      // One id in 50 is older than the rest (an import): ordinals then stop following ids.
      const id = i > 50_000 && rand() < 0.02 ? ulid(Math.floor(rand() * 1e9)) : ulid(1e10 + next++ * 1000);
      if (docs.has(id)) continue;
      const doc = docTerms({ content: text, tags: rand() < 0.1 ? [zipfWord(rand)] : undefined, createdAt: '2026-01-01T00:00:00.000Z' });
      p.add(id, doc);
      texts.push(text);
      // Some removals throughout: dead postings in sealed blocks, and lists rebuilt.
      if (rand() < 0.15) p.removeIfThere(ulid(1e10 + Math.floor(rand() * next) * 1000));
    }
    assert.equal(index.facts, docs.size);
    let compared = 0;
    let nonEmpty = 0;
    for (let q = 0; q < 3000; q++) {
      const from = texts[Math.floor(rand() * texts.length)]!.split(' ');
      const length = 1 + Math.floor(rand() * 3);
      const start = Math.floor(rand() * Math.max(1, from.length - length));
      let query = from.slice(start, start + length).join(' ');
      if (q % 7 === 0) query = `${query} ${words[Math.floor(rand() * 40)]!.slice(0, 2)}*`;
      if (q % 11 === 0) query = `${words[Math.floor(rand() * VOCABULARY)]!} ${words[VOCABULARY - 1 - Math.floor(rand() * 100)]!}`;
      const k = [1, 10, 10, 10, 50, 100][q % 6]!;
      const analysed = analyzeQuery(query);
      const got = p.search(analysed, k, `query ${JSON.stringify(query)} k ${k}`);
      compared++;
      if (got.length > 0) nonEmpty++;
    }
    assert.equal(compared, 3000);
    assert.ok(nonEmpty > 2500, `most queries find facts (${nonEmpty})`);
  });

  test('equals exhaustive scoring where ids follow ordinals and scores tie by the thousand', () => {
    // Ids in arrival order: a fact met later loses every tie, which lets
    // windows, blocks and sums equal to the threshold be passed over. One-
    // and two-word queries of common words tie most (score hangs on the
    // frequency and the length alone).
    const rand = random(71);
    const p = new Paired();
    const { index, docs } = p;
    const texts: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const n = 4 + Math.floor(rand() * 6);
      const text = Array.from({ length: n }, () => zipfWord(rand)).join(' ');
      const id = ulid(1e10 + i * 1000);
      const doc = docTerms({ content: text, createdAt: '2026-01-01T00:00:00.000Z' });
      p.add(id, doc);
      texts.push(text);
      if (rand() < 0.05 && i > 10) p.removeIfThere(ulid(1e10 + Math.floor(rand() * i) * 1000));
    }
    for (let q = 0; q < 2000; q++) {
      const query = Array.from({ length: 1 + (q % 2) }, () => words[Math.floor(rand() * (q % 3 === 0 ? 5 : 60))]!).join(' ');
      const k = [1, 10, 10, 100][q % 4]!;
      const analysed = analyzeQuery(query);
      p.search(analysed, k, `query ${JSON.stringify(query)} k ${k}`);
    }
  });

  test('equals exhaustive scoring when common words are read only for facts that can still enter', () => {
    // Common words beside one rarer word or prefix: once the threshold
    // leaves the common words non-essential, a window reads the rarer
    // slot alone (its strong list, frequencies of 2 and more, when that
    // is enough; a prefix's completions merged) and probes the common
    // words for the facts left. Facts of 2-9 words, so
    // that frequencies of 2 and more are common and lengths vary; some
    // removed, some ids out of order.
    const rand = random(89);
    const p = new Paired();
    const { index, docs } = p;
    for (let i = 0; i < 60_000; i++) {
      const n = 2 + Math.floor(rand() * 7);
      const picked = Array.from({ length: n }, () => zipfWord(rand));
      // A second family of words, letters only (the analysis splits letters from digits), all
      // of five: their prefixes (kx*, kxb*) are no word of their own.
      if (rand() < 0.6) {
        const r = Number.parseInt(zipfWord(rand).slice(1), 36);
        picked.push(`kx${String.fromCharCode(97 + (r % 26), 97 + (Math.floor(r / 26) % 26))}q`);
      }
      const text = picked.join(' ');
      const id = rand() < 0.01 ? ulid(Math.floor(rand() * 1e9)) : ulid(1e10 + i * 1000);
      if (docs.has(id)) continue;
      const doc = docTerms({ content: text, createdAt: '2026-01-01T00:00:00.000Z' });
      p.add(id, doc);
      if (rand() < 0.05) p.removeIfThere(ulid(1e10 + Math.floor(rand() * i) * 1000));
    }
    for (let q = 0; q < 2000; q++) {
      const common = Array.from({ length: 1 + (q % 2) }, () => words[Math.floor(rand() * 4)]!);
      const rarer = words[4 + Math.floor(rand() * 40)]!;
      const last = [`kx*`, `kx${String.fromCharCode(97 + (q % 5))}*`, `${rarer.slice(0, Math.max(2, rarer.length - 1))}*`, rarer, rarer][q % 5]!;
      const query = [...common, last].join(' ');
      const k = [1, 10, 100, 200][q % 4]!;
      const analysed = analyzeQuery(query);
      p.search(analysed, k, `query ${JSON.stringify(query)} k ${k}`);
    }
  });

  test('equals exhaustive scoring on a loaded index, searched between writes', () => {
    // A load seals each list in one go, its blocks one after the other,
    // which the kernel copies a window's worth at a time; writes between
    // searches then free blocks and reuse them in place (lists rebuilt
    // after removals), so no search may read bytes copied for an earlier
    // one. Prefixes of several completions beside common words: their
    // lists are read keeping each fact's best part.
    const rand = random(131);
    const p = new Paired();
    const { index, docs } = p;
    const texts: string[] = [];
    const fact = (i: number): void => {
      const text = Array.from({ length: 3 + Math.floor(rand() * 10) }, () => zipfWord(rand)).join(' ');
      const id = ulid(1e10 + i * 1000);
      const doc = docTerms({ content: text, createdAt: '2026-01-01T00:00:00.000Z' });
      p.add(id, doc);
      texts.push(text);
    };
    index.beginLoad();
    for (let i = 0; i < 50_000; i++) fact(i);
    index.endLoad();
    let next = 50_000;
    let multi = 0;
    for (let round = 0; round < 200; round++) {
      for (let q = 0; q < 8; q++) {
        const from = texts[Math.floor(rand() * texts.length)]!.split(' ');
        const common = Array.from({ length: q % 3 }, () => words[Math.floor(rand() * 6)]!);
        const last = q % 2 === 0 ? `${words[Math.floor(rand() * 200)]!.slice(0, 2)}*` : from[Math.floor(rand() * from.length)]!;
        const analysed = analyzeQuery([...common, last].join(' '));
        if (analysed.prefix !== undefined && index.complete(analysed.prefix.surface).length > 1) multi++;
        const k = [1, 10, 100][q % 3]!;
        p.search(analysed, k, `round ${round}: ${JSON.stringify(analysed)} k ${k}`);
      }
      // Writes between searches: removals of older facts (lists rebuilt, blocks freed), adds that reuse them.
      for (let w = 0; w < 150; w++) p.removeIfThere(ulid(1e10 + Math.floor(rand() * next) * 1000));
      for (let w = 0; w < 100; w++) fact(next++);
    }
    assert.ok(multi > 500, `${multi} of 1,600 queries end in a prefix of several completions`);
  });

  test('equals exhaustive scoring on prefixes that complete to one word', () => {
    // A prefix of one completion is read as a term is (the kernel, the
    // strongest-first probes), where several completions are merged
    // first. Words of a letters-only family, kx + two letters + q, so
    // that kxab* completes to kxabq alone; and zz + a letter, with zz?q
    // beside it, so that zza* completes to zzaq alone while zza, the word
    // as typed, may be a term of the query too (its facts then get no
    // prefix part). Beside common words, in windows scored whole and in
    // windows read for one slot.
    const rand = random(97);
    const p = new Paired();
    const { index, docs } = p;
    const family = (r: number) => `kx${String.fromCharCode(97 + (r % 26), 97 + (Math.floor(r / 26) % 26))}q`;
    for (let i = 0; i < 60_000; i++) {
      const picked = Array.from({ length: 2 + Math.floor(rand() * 7) }, () => zipfWord(rand));
      if (rand() < 0.5) picked.push(family(Number.parseInt(zipfWord(rand).slice(1), 36)));
      if (rand() < 0.3) {
        // The word, its one completion, or (a fact of both) the two.
        const zz = `zz${String.fromCharCode(97 + Math.floor(rand() * 6))}`;
        const which = rand();
        picked.push(...(which < 0.4 ? [zz] : which < 0.8 ? [`${zz}q`] : [zz, `${zz}q`]));
      }
      const id = rand() < 0.01 ? ulid(Math.floor(rand() * 1e9)) : ulid(1e10 + i * 1000);
      if (docs.has(id)) continue;
      const doc = docTerms({ content: picked.join(' '), createdAt: '2026-01-01T00:00:00.000Z' });
      p.add(id, doc);
      if (rand() < 0.05) p.removeIfThere(ulid(1e10 + Math.floor(rand() * i) * 1000));
    }
    let single = 0;
    for (let q = 0; q < 2000; q++) {
      const common = Array.from({ length: q % 3 }, () => words[Math.floor(rand() * (q % 2 === 0 ? 4 : 60))]!);
      const letter = String.fromCharCode(97 + Math.floor(rand() * 6));
      const r = Number.parseInt(words[Math.floor(rand() * 300)]!.slice(1), 36);
      const last = [`${family(r).slice(0, 4)}*`, `zz${letter}*`, `zz${letter} zz${letter}*`, `${family(r)} ${family(r).slice(0, 4)}*`][q % 4]!;
      const query = [...common, last].join(' ');
      const k = [1, 10, 100, 200][q % 4]!;
      const analysed = analyzeQuery(query);
      if (index.complete(analysed.prefix!.surface).length <= 2) single++;
      p.search(analysed, k, `query ${JSON.stringify(query)} k ${k}`);
    }
    // The prefixes are those of one completion (besides, for zz?*, the word as typed).
    assert.ok(single > 1900, `${single} of 2000 prefixes complete to one word or two`);
  });
});
