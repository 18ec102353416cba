// Searches keep the heads of posting lists and the prefix completions they
// read in memory; every change of the agent's index must be seen by the
// next search: adds, updates, deletes, imports, and writes racing searches.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { openTempStore, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

async function ids(store: MemoryStore, query: string, limit = 100): Promise<string[]> {
  return (await store.searchFacts({ agentId: 's', query, limit })).facts.map((f) => f.id).sort();
}

describe('search after writes (cached lists and completions)', () => {
  test('each add, update, delete and import is seen by the next search', async () => {
    const { store } = await openTempStore();
    const a = (await store.addFact({ agentId: 's', content: 'kiwi smoothie recipe' })).factId;
    // Read (and cache) the lists of `kiwi` and the completions of `kiw`.
    assert.deepEqual(await ids(store, 'kiwi '), [a]);
    assert.deepEqual(await ids(store, 'kiw*'), [a]);
    const b = (await store.addFact({ agentId: 's', content: 'kiwis are in season' })).factId;
    assert.deepEqual(await ids(store, 'kiwi '), [a, b].sort());
    const c = (await store.addFact({ agentId: 's', content: 'kiwifruit allergy' })).factId;
    assert.deepEqual(await ids(store, 'kiw*'), [a, b, c].sort(), 'a new completion of a cached prefix');
    await store.reflect({ agentId: 's', factId: a, action: 'delete' });
    assert.deepEqual(await ids(store, 'kiwi '), [b]);
    assert.deepEqual(await ids(store, 'kiw*'), [b, c].sort());
    const { supersededBy } = await store.reflect({ agentId: 's', factId: b, action: 'update', content: 'mango season' });
    assert.deepEqual(await ids(store, 'kiwi '), []);
    assert.deepEqual(await ids(store, 'mango '), [supersededBy!]);
    await store.importRecords({
      records: [{ type: 'fact', agentId: 's', id: '01J0000000000000000000000K', content: 'kiwi jam', createdAt: '2024-01-01T00:00:00.000Z' }],
    });
    assert.deepEqual(await ids(store, 'kiwi '), ['01J0000000000000000000000K']);
  });

  test('searches racing writes: afterwards every search sees exactly the current facts', async () => {
    const { store } = await openTempStore();
    const current = new Set<string>();
    const writes = (async () => {
      for (let i = 0; i < 200; i++) {
        const id = (await store.addFact({ agentId: 's', content: `plum note ${i} tag${i % 7}` })).factId;
        current.add(id);
        if (i % 3 === 0) {
          await store.reflect({ agentId: 's', factId: id, action: 'delete' });
          current.delete(id);
        }
      }
    })();
    const searches = (async () => {
      for (let i = 0; i < 300; i++) await ids(store, i % 2 === 0 ? 'plum' : 'plum note', 100);
    })();
    await Promise.all([writes, searches]);
    const expected = [...current].sort();
    const found = new Set<string>();
    // Page through by limit: 134 current facts, limit 100 per search; the
    // union of two disjoint queries covers them.
    for (const q of ['plum', 'tag0 tag1 tag2 tag3 tag4 tag5 tag6']) for (const id of await ids(store, q, 100)) found.add(id);
    assert.equal((await ids(store, 'plum', 100)).length, 100);
    for (const id of found) assert.ok(current.has(id), `found a removed fact ${id}`);
    const byTag = new Set<string>();
    for (let t = 0; t < 7; t++) for (const id of await ids(store, `tag${t} `, 100)) byTag.add(id);
    assert.deepEqual([...byTag].sort(), expected);
  });
});
