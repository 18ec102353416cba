// An import's facts are prepared (stored value, dedup hash, analysis) on a
// worker thread once there are enough of them (store/level/fact-prep-pool.ts):
// what the worker prepares is what the event loop would, fact for fact, and
// the analysis it carries back is docTerms' own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { docTerms } from '@memoryd/daemon/search';
import { FactPrepPool } from '../dist/store/level/fact-prep-pool.js';
import { prepareFact, unpackDoc } from '../dist/store/level/fact-prep.js';

const ulid = (i: number) => `01ARZ3NDEK${String(i).padStart(16, '0')}`;

function facts(n: number): Array<[{ id: string; content: string; createdAt: string; tags?: string[] }, boolean]> {
  return Array.from({ length: n }, (_, i) => [
    {
      id: ulid(i),
      content: `fact ${i}: the user's kebab-case v2.${i} café deployment runs on #${i} Friday, ${'word '.repeat(i % 7)}`,
      createdAt: '2026-12-05T10:00:00.000Z',
      ...(i % 3 === 0 ? { tags: ['Deploy', `tag${i}`] } : {}),
    },
    i % 5 !== 0,
  ]);
}

describe('fact preparation', () => {
  it('on the worker gives what the event loop gives, fact for fact', async () => {
    const pool = new FactPrepPool();
    try {
      const batch = facts(300);
      const prepared = await pool.prepare(batch);
      assert.deepEqual(prepared, batch.map(([fact, current]) => prepareFact(fact, current)));
      for (const [i, p] of prepared.entries()) {
        const [fact, current] = batch[i]!;
        if (!current) {
          assert.equal(p.doc, undefined);
          continue;
        }
        assert.deepEqual(unpackDoc(p.doc!), docTerms(fact));
      }
    } finally {
      await pool.close();
    }
  });

  it('after close, still prepares, on the event loop', async () => {
    const pool = new FactPrepPool();
    await pool.close();
    const batch = facts(100);
    assert.deepEqual(await pool.prepare(batch), batch.map(([fact, current]) => prepareFact(fact, current)));
  });
});
