// The simulated embedder the quality sweep runs on (@memoryd/test-support's
// simulated-embedder.ts): that it is the daemon's Embedder, deterministic,
// of unit vectors, and that its cosines sit where the sweep assumes they
// do, so a sweep's figure is the fusion's and not the simulation's slip.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Embedder } from '@memoryd/daemon';
import { gaussianVector, type SimulatedSet, simulatedEmbedder } from '@memoryd/test-support';
import { cosine } from './helpers/cosine.js';


const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const deviation = (xs: readonly number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));

/** 200 facts; query i judges fact i alone, and "either" judges facts 0 and 1, asked twice. */
const FACTS = Array.from({ length: 200 }, (_, i) => ({ key: `f${i}`, content: `fact number ${i} about something` }));
const SET: SimulatedSet = {
  facts: FACTS,
  queries: [
    ...FACTS.map((f, i) => ({ query: `question ${i}`, relevant: [f.key] })),
    { query: 'either', relevant: ['f0'] },
    { query: 'either', relevant: ['f1'] },
  ],
};
const DOCS = FACTS.map((f) => f.content);
const QUERIES = FACTS.map((_, i) => `question ${i}`);
/** c = 1.53: unrelated texts' cosine c²/(1+c²), about 0.70. */
const NARROW = 1.53;
const NARROW_BAND = NARROW ** 2 / (1 + NARROW ** 2);

/** Cosines of distinct pairs of the vectors. */
function pairCosines(vectors: readonly Float32Array[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) out.push(cosine(vectors[i]!, vectors[j]!));
  return out;
}

describe('simulatedEmbedder', () => {
  it("is the daemon's Embedder, named by its parameters", async () => {
    const embedder: Embedder = simulatedEmbedder({ set: SET, signal: 0.02, common: NARROW });
    assert.equal(embedder.kind, 'ollama');
    assert.equal(embedder.model, 'simulated-s0.02-c1.53');
    assert.equal(embedder.space, 'ollama:simulated-s0.02-c1.53');
    assert.equal(embedder.maxBatch, 64);
    assert.equal(simulatedEmbedder({ set: SET, signal: 0.3, dimensions: 64 }).model, 'simulated-s0.3-c0-d64');
    const [v] = await embedder.embed(['anything'], 'document');
    assert.equal(v!.length, 384);
  });

  it('gives the same vectors in every instance, each of unit length', async () => {
    for (const common of [0, NARROW]) {
      const a = simulatedEmbedder({ set: SET, signal: 0.1, common });
      const b = simulatedEmbedder({ set: SET, signal: 0.1, common });
      for (const purpose of ['document', 'query'] as const) {
        const texts = purpose === 'query' ? [...QUERIES.slice(0, 20), 'not a query of the set'] : DOCS.slice(0, 20);
        const va = await a.embed(texts, purpose);
        const vb = await b.embed(texts, purpose);
        assert.deepEqual(va, vb);
        for (const v of va) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, `length ${Math.hypot(...v)}`);
      }
    }
  });

  it('spreads unrelated texts around 0 without a common direction, by about 1/√dims', async () => {
    const vectors = await simulatedEmbedder({ set: SET, signal: 0.5 }).embed(DOCS.slice(0, 60), 'document');
    const cosines = pairCosines(vectors);
    assert.ok(Math.abs(mean(cosines)) < 0.01, `mean ${mean(cosines)}`);
    const expected = 1 / Math.sqrt(384);
    assert.ok(Math.abs(deviation(cosines) - expected) < 0.01, `deviation ${deviation(cosines)}, expected ${expected}`);
  });

  it('crowds unrelated texts near 0.7 with common 1.53, documents and queries alike', async () => {
    const embedder = simulatedEmbedder({ set: SET, signal: 0.5, common: NARROW });
    const docs = await embedder.embed(DOCS.slice(0, 60), 'document');
    const cosines = pairCosines(docs);
    assert.ok(Math.abs(mean(cosines) - NARROW_BAND) < 0.02, `mean ${mean(cosines)}, expected ${NARROW_BAND}`);
    assert.ok(deviation(cosines) < 0.03, `deviation ${deviation(cosines)}`);
    // A query with the facts it does not judge.
    const [q] = await embedder.embed([QUERIES[0]!], 'query');
    const others = docs.slice(1).map((d) => cosine(q!, d));
    assert.ok(Math.abs(mean(others) - NARROW_BAND) < 0.02, `query-document mean ${mean(others)}`);
  });

  it('points a query at its relevant fact by √signal on the spread scale, and by its image on the narrow one', async () => {
    for (const signal of [0, 0.02, 0.3, 0.95]) {
      for (const common of [0, NARROW]) {
        const embedder = simulatedEmbedder({ set: SET, signal, common });
        const docs = await embedder.embed(DOCS, 'document');
        const queries = await embedder.embed(QUERIES, 'query');
        const own = queries.map((q, i) => cosine(q, docs[i]!));
        // û and the fact's vector coincide; n̂ and ê are all but orthogonal to both.
        const expected = (Math.sqrt(signal) + common ** 2) / (1 + common ** 2);
        assert.ok(Math.abs(mean(own) - expected) < 0.01, `signal ${signal}, common ${common}: mean ${mean(own)}, expected ${expected}`);
      }
    }
  });

  it('takes the pre-common document vectors as the evidence, and a perfect query is its fact', async () => {
    const embedder = simulatedEmbedder({ set: SET, signal: 1, common: NARROW });
    const [q] = await embedder.embed([QUERIES[7]!], 'query');
    const [d] = await embedder.embed([DOCS[7]!], 'document');
    assert.ok(cosine(q!, d!) > 0.99999, `cosine ${cosine(q!, d!)}`);
    const spread = simulatedEmbedder({ set: SET, signal: 1 });
    const [p] = await spread.embed([QUERIES[7]!], 'query');
    assert.ok(cosine(p!, gaussianVector(DOCS[7]!, 384)) > 0.99999);
  });

  it('unions the facts of a query text asked twice, and gives a text not in the set noise only', async () => {
    const embedder = simulatedEmbedder({ set: SET, signal: 1 });
    const [either, stranger] = await embedder.embed(['either', 'what is the capital of France?'], 'query');
    const docs = await embedder.embed(DOCS, 'document');
    assert.ok(Math.abs(cosine(either!, docs[0]!) - Math.SQRT1_2) < 0.08, `f0: ${cosine(either!, docs[0]!)}`);
    assert.ok(Math.abs(cosine(either!, docs[1]!) - Math.SQRT1_2) < 0.08, `f1: ${cosine(either!, docs[1]!)}`);
    const toFacts = docs.map((d) => cosine(stranger!, d));
    assert.ok(Math.abs(mean(toFacts)) < 0.02 && Math.max(...toFacts) < 0.25, `stranger: mean ${mean(toFacts)}, max ${Math.max(...toFacts)}`);
  });

  it('refuses a judged key the facts lack, and parameters out of range', () => {
    assert.throws(() => simulatedEmbedder({ set: { facts: [], queries: [{ query: 'q', relevant: ['nope'] }] }, signal: 0.5 }), RangeError);
    for (const bad of [{ signal: -0.1 }, { signal: 1.5 }, { signal: Number.NaN }, { signal: 0.5, common: -1 }, { signal: 0.5, dimensions: 0 }]) {
      assert.throws(() => simulatedEmbedder({ set: SET, ...bad }), RangeError, JSON.stringify(bad));
    }
  });

  it('honours an aborted signal', async () => {
    const embedder = simulatedEmbedder({ set: SET, signal: 0.5 });
    await assert.rejects(embedder.embed(['x'], 'document', AbortSignal.abort(new Error('stop'))), /stop/);
  });
});
