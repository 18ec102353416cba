// The cache of decoded facts searches read their answers through: two
// generations, so it always holds the last half of its size that was set
// or hit, whatever came before.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FactCache } from '../dist/store/level/fact-cache.js';

const fact = (n: number) => ({ id: `01J${String(n).padStart(23, '0')}`, content: `fact ${n}`, createdAt: '2025-01-01T00:00:00.000Z' });

describe('fact cache', () => {
  test('holds at least the last half of its size set, and never more than its size', () => {
    const cache = new FactCache(8);
    for (let n = 0; n < 100; n++) {
      cache.set('a', fact(n));
      for (let back = 0; back < 4 && back <= n; back++) assert.deepEqual(cache.get('a', fact(n - back).id), fact(n - back), `fact ${n - back} after ${n}`);
      let held = 0;
      for (let m = 0; m <= n; m++) if (cache.get('a', fact(m).id) !== undefined) held++;
      // Counting hits moves facts; the bound still holds.
      assert.ok(held <= 8, `${held} facts held after ${n + 1} sets`);
    }
  });

  test('a hit in the old generation survives the next turn', () => {
    const cache = new FactCache(4);
    for (let n = 0; n < 2; n++) cache.set('a', fact(n));
    for (let n = 2; n < 4; n++) cache.set('a', fact(n)); // 0 and 1 are now old
    assert.ok(cache.get('a', fact(0).id) !== undefined); // moves 0 to the young generation
    cache.set('a', fact(4)); // the young generation was full: it turns; 1 is gone
    cache.set('a', fact(5));
    assert.equal(cache.get('a', fact(1).id), undefined);
    assert.deepEqual(cache.get('a', fact(0).id), fact(0));
  });

  test('a deleted fact is gone from both generations; agents are apart', () => {
    const cache = new FactCache(4);
    cache.set('a', fact(1));
    cache.set('a', fact(2));
    cache.set('a', fact(3)); // 1 and 2 old, 3 young
    cache.set('b', fact(1));
    cache.delete('a', fact(1).id);
    cache.delete('a', fact(3).id);
    assert.equal(cache.get('a', fact(1).id), undefined);
    assert.equal(cache.get('a', fact(3).id), undefined);
    assert.deepEqual(cache.get('a', fact(2).id), fact(2));
    assert.deepEqual(cache.get('b', fact(1).id), fact(1));
  });

  test('size 0 holds nothing', () => {
    const cache = new FactCache(0);
    cache.set('a', fact(1));
    assert.equal(cache.get('a', fact(1).id), undefined);
  });
});
