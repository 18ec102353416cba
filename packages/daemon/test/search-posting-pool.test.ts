// The in-memory index's posting pool against a plain model: lists that
// grow, move, shrink and go away, with the pool packing its garbage often
// (a tiny threshold), must always hold exactly the model's pairs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostingPool } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';

function contents(pool: PostingPool, id: number): number[] {
  const from = 2 * pool.start[id]!;
  return [...pool.pairs.subarray(from, from + 2 * pool.size[id]!)];
}

test('PostingPool holds what a map of arrays holds, through appends, filters, deletes and packing', () => {
  const rand = random(53);
  const pool = new PostingPool(8);
  const model = new Map<string, number[]>();
  const terms = Array.from({ length: 40 }, (_, i) => `t${i}`);
  let ord = 0;
  for (let step = 0; step < 20_000; step++) {
    const term = terms[Math.floor(terms.length * rand() ** 2)]!;
    const r = rand();
    if (r < 0.8) {
      const id = pool.listFor(term);
      const frequency = 1 + Math.floor(rand() * 5);
      pool.append(id, ord, frequency);
      pool.df[id]!++;
      if (!model.has(term)) model.set(term, []);
      model.get(term)!.push(ord++, frequency);
    } else if (r < 0.9 && model.has(term)) {
      // Drop the pairs of even ordinals.
      const keep = new Uint8Array(ord + 1).map((_, o) => (o % 2 === 1 ? 1 : 0));
      pool.filter(pool.list(term), keep);
      const pairs = model.get(term)!;
      model.set(term, pairs.filter((_, i) => pairs[i - (i % 2)]! % 2 === 1));
    } else if (model.has(term)) {
      pool.delete(term);
      model.delete(term);
    }
    if (step % 97 === 0) {
      for (const t of terms) {
        const id = pool.list(t);
        assert.equal(id >= 0, model.has(t), `${t} at step ${step}`);
        if (id >= 0) assert.deepEqual(contents(pool, id), model.get(t), `${t} at step ${step}`);
      }
      assert.equal(pool.used, [...model.values()].reduce((s, p) => s + p.length / 2, 0));
    }
  }
  pool.pack();
  for (const t of terms) if (model.has(t)) assert.deepEqual(contents(pool, pool.list(t)), model.get(t));
});
