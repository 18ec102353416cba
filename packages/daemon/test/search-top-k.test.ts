// topK against brute force: on random facts whose words overlap heavily
// (a small, skewed vocabulary, tags, repeated words), the index's top-k
// (reading postings in the index's order, stopping early) must equal
// scoring every fact and sorting, scores included, for every query shape:
// one word, several, the last one as a prefix, limits 1 to 100.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DocTerms,
  type Posting,
  type PostingSource,
  PREFIX_WEIGHT,
  type QueryModel,
  type WeightedList,
  docTerms,
  idf,
  mergeSources,
  postingBefore,
  scoreDoc,
  topK,
} from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';


const WORDS = ['alpha', 'alphabet', 'alps', 'beta', 'bet', 'gamma', 'delta', 'deploy', 'deployed', 'deploying', 'epsilon', 'zeta', 'eta', 'theta'];

interface Doc {
  id: string;
  terms: DocTerms;
}

function corpus(rand: () => number, n: number): Doc[] {
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const words: string[] = [];
    const length = 1 + Math.floor(rand() * 12);
    // Skewed: low indexes far more often, so lists are long and overlap.
    for (let w = 0; w < length; w++) words.push(WORDS[Math.floor(WORDS.length * rand() ** 2)]!);
    const tags = rand() < 0.3 ? [WORDS[Math.floor(rand() * WORDS.length)]!] : undefined;
    // Ids sort by creation, like ULIDs; some share a score to test tie-breaking.
    docs.push({ id: `id${String(i).padStart(6, '0')}`, terms: docTerms(words.join(' '), tags) });
  }
  return docs;
}

/** A term's postings in the index's order, read a few at a time. */
function source(docs: readonly Doc[], term: string): PostingSource {
  const postings: Posting[] = docs
    .filter((d) => d.terms.terms.has(term))
    .map((d) => ({ id: d.id, frequency: d.terms.terms.get(term)!, length: d.terms.length }))
    .sort((a, b) => (postingBefore(a, b) ? -1 : postingBefore(b, a) ? 1 : 0));
  let at = 0;
  let closed = false;
  const held = new Map(postings.map((p) => [p.id, p]));
  return {
    probe: (id, frequency, length) => {
      const p = held.get(id);
      return p !== undefined && p.frequency === frequency && p.length === length;
    },
    read: async (max) => {
      assert.equal(closed, false, 'read after close');
      const out = postings.slice(at, at + Math.min(max, 7));
      at += out.length;
      return out;
    },
    close: async () => {
      closed = true;
    },
  };
}

/** Builds the query model and lists the way store/search.ts does, from the same docs. */
function plan(docs: readonly Doc[], terms: readonly string[], prefix: string | undefined) {
  const n = docs.length;
  const avgLength = docs.reduce((s, d) => s + d.terms.length, 0) / n;
  const df = (t: string) => docs.filter((d) => d.terms.terms.has(t)).length;
  const model: QueryModel & { terms: Array<{ term: string; idf: number }> } = { terms: [], avgLength };
  const lists: WeightedList[] = [];
  const byTerm = new Map<string, WeightedList>();
  for (const term of terms) {
    if (df(term) === 0) continue;
    const weight = idf(n, df(term));
    model.terms.push({ term, idf: weight });
    const list = { source: source(docs, term), weight };
    lists.push(list);
    byTerm.set(term, list);
  }
  if (prefix !== undefined) {
    const completions = new Set<string>();
    for (const d of docs) for (const t of d.terms.terms.keys()) if (t.startsWith(prefix) && t !== prefix) completions.add(t);
    const prefixDf = Math.min(n, [...completions].reduce((s, t) => s + df(t), 0));
    if (prefixDf > 0) {
      const weight = Math.min(idf(n, prefixDf), idf(n, df(prefix)));
      model.prefix = { term: prefix, completions, idf: weight };
      const list: WeightedList = { source: mergeSources([...completions].map((t) => source(docs, t))), weight: PREFIX_WEIGHT * weight };
      const own = byTerm.get(prefix);
      if (own !== undefined) list.excludes = own;
      lists.push(list);
    }
  }
  return { model, lists };
}

function bruteForce(docs: readonly Doc[], model: QueryModel, k: number) {
  return docs
    .map((d) => ({ id: d.id, score: scoreDoc(d.terms, model) }))
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1))
    .slice(0, k);
}

describe('topK', () => {
  test('equals scoring every fact, on 600 random queries over 400 overlapping facts', async () => {
    const rand = random(7);
    const docs = corpus(rand, 400);
    const byId = new Map(docs.map((d) => [d.id, d]));
    for (let q = 0; q < 600; q++) {
      const terms = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
      const prefix = rand() < 0.4 ? ['al', 'alp', 'de', 'deploy', 'be', 'et', 'the'][Math.floor(rand() * 7)] : undefined;
      const k = [1, 3, 10, 100][Math.floor(rand() * 4)]!;
      // As analyzeQuery gives it: the prefix is also the query's last term.
      const { model, lists } = plan(docs, prefix === undefined ? terms : [...terms, prefix], prefix);
      let reads = 0;
      const got = await topK(lists, k, model.avgLength, (id) => {
        reads++;
        return scoreDoc(byId.get(id)!.terms, model);
      });
      const want = bruteForce(docs, model, k);
      const what = `query ${JSON.stringify(terms)} prefix ${prefix} k ${k}`;
      assert.deepEqual(got.map((h) => h.id), want.map((h) => h.id), what);
      for (const [i, h] of got.entries()) assert.ok(Math.abs(h.score - want[i]!.score) < 1e-9, what);
      // The k chosen are read to return them, and at most 64 more (maxReads) to settle.
      assert.ok(reads <= 2 * k + 64, `${what}: read ${reads} facts`);
    }
  });

  test('stops early: a one-word query reads only the head of its list', async () => {
    // 2,000 facts holding `alpha` once among 1–30 other words of their own.
    const rand = random(11);
    const docs: Doc[] = Array.from({ length: 2000 }, (_, i) => {
      const words = Array.from({ length: 1 + Math.floor(rand() * 30) }, (_, w) => `w${i}x${w}`);
      return { id: `id${String(i).padStart(6, '0')}`, terms: docTerms(['alpha', ...words].join(' ')) };
    });
    const { model, lists } = plan(docs, ['alpha'], undefined);
    let postings = 0;
    const counted = lists.map((l) => ({
      ...l,
      source: { read: async (max: number) => { const r = await l.source.read(max); postings += r.length; return r; }, close: () => l.source.close() },
    }));
    const got = await topK(counted, 10, model.avgLength, (id) => scoreDoc(docs.find((d) => d.id === id)!.terms, model));
    const df = docs.filter((d) => d.terms.terms.has('alpha')).length;
    assert.equal(got.length, 10);
    assert.equal(df, 2000);
    assert.ok(postings <= 200, `read ${postings} of ${df} postings`);
  });

  test('over budget, returns facts scored whole, best first, all matching', async () => {
    const docs = corpus(random(13), 1000);
    const byId = new Map(docs.map((d) => [d.id, d]));
    const { model, lists } = plan(docs, ['alpha', 'beta', 'gamma'], undefined);
    const got = await topK(lists, 10, model.avgLength, (id) => scoreDoc(byId.get(id)!.terms, model), { maxPostings: 50, maxReads: 5 });
    assert.equal(got.length, 10);
    for (const h of got) assert.equal(h.score, scoreDoc(byId.get(h.id)!.terms, model));
    for (let i = 1; i < got.length; i++) assert.ok(got[i - 1]!.score >= got[i]!.score);
  });

  test('a fact no longer current (score undefined) is left out', async () => {
    const docs = corpus(random(17), 200);
    const { model, lists } = plan(docs, ['alpha'], undefined);
    const want = bruteForce(docs, model, 5);
    const removed = want[0]!.id;
    const got = await topK(lists, 5, model.avgLength, (id) => (id === removed ? undefined : scoreDoc(docs.find((d) => d.id === id)!.terms, model)));
    assert.ok(!got.some((h) => h.id === removed));
  });
});
