// A store of an earlier version (its LevelDB index under !post!, !term!
// and !surf!, another `!meta!index`, counters in the old `{facts,
// checkpoints}` form, no stamps) is brought to this version at open: the
// old index sublevels are cleared, the counters recounted to exactly what
// the writes kept, and searches answer as before.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Level } from 'level';
import type { MemoryStore } from '@memoryd/daemon';
import { sealValue, unsealValue } from './helpers/seal.js';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

const INDEX_SUBLEVELS = ['!post!', '!term!', '!surf!', '!stats!'];
const QUERIES = ['deploy', 'postgres version', 'alice', 'kebab-c', 'the', 'friday checklist', 'deployi', 'v2.3'];

/** Every key and value of the index sublevels and the counters (or of the whole store), read raw. */
async function indexEntries(dataDir: string, everything = false): Promise<Array<[string, string]>> {
  const db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    return (await db.iterator().all()).filter(([k]) => everything || INDEX_SUBLEVELS.some((p) => k.startsWith(p)));
  } finally {
    await db.close();
  }
}

/** Makes the store look as an earlier version left it: a LevelDB index, old counters, no stamps, another version. */
async function makeOld(dataDir: string): Promise<void> {
  const db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    const ops: Array<{ type: 'del'; key: string } | { type: 'put'; key: string; value: string }> = [];
    for (const key of ['!post!a\x00deploy\x00zzx001' + '01J0000000000000000000000A', '!term!a\x00deploy', '!surf!a\x00deploy']) {
      ops.push({ type: 'put', key, value: sealValue(key, key.startsWith('!surf!') ? '1 deploy' : '1') });
    }
    for (const [key, value] of await db.iterator().all()) {
      if (key.startsWith('!meta!stamp:')) ops.push({ type: 'del', key });
      if (key.startsWith('!stats!')) {
        const { facts, checkpoints } = JSON.parse(unsealValue(key, value)) as { facts: number; checkpoints: number };
        ops.push({ type: 'put', key, value: sealValue(key, JSON.stringify({ facts, checkpoints })) });
      }
    }
    ops.push({ type: 'put', key: '!meta!index', value: sealValue('!meta!index', 'postings 2, analysis 0') });
    await db.batch(ops);
  } finally {
    await db.close();
  }
}

async function answers(store: MemoryStore): Promise<string[][]> {
  const out: string[][] = [];
  for (const agentId of ['a', 'b']) {
    for (const query of QUERIES) out.push((await store.searchFacts({ agentId, query })).facts.map((f) => `${f.id} ${f.score}`));
  }
  return out;
}

describe('a store of an earlier version', () => {
  test('loses its LevelDB index, gets the counters the writes kept, and searches answer the same', async () => {
    const { store, dataDir } = await openTempStore();
    const texts = [
      'Deploy checklist for Friday: run the migrations first',
      'The project uses PostgreSQL 15; version pinned in docker-compose.yml',
      'Alice prefers kebab-case file names',
      'Deploying v2.3 broke the login page',
      'friday checklist',
      'The who played on Friday',
    ];
    const ids: string[] = [];
    for (const [i, content] of texts.entries()) {
      for (const agentId of ['a', 'b']) {
        const r = await store.addFact({ agentId, content, ...(i % 2 === 0 ? { tags: ['Ops', 'deploying'] } : {}) });
        if (agentId === 'a') ids.push(r.factId);
      }
    }
    await store.addFact({ agentId: 'a', content: texts[0]! });
    await store.reflect({ agentId: 'a', factId: ids[1]!, action: 'update', content: 'The project moved to PostgreSQL 16' });
    await store.reflect({ agentId: 'a', factId: ids[2]!, action: 'delete' });
    await store.reflect({ agentId: 'a', factId: ids[3]!, action: 'update', content: texts[4]! });
    await store.importRecords({
      records: [{ type: 'fact', agentId: 'b', id: '01J0000000000000000000000A', content: 'Imported: alice deploys on friday', createdAt: '2024-06-01T00:00:00.000Z' }],
    });
    await store.saveCheckpoint({ agentId: 'c', state: { step: 1 } });
    const before = await answers(store);
    assert.ok(before.some((a) => a.length > 0));
    await store.close();
    const kept = await indexEntries(dataDir);
    assert.ok(kept.some(([k]) => k.startsWith('!stats!')));
    assert.ok(!kept.some(([k]) => k.startsWith('!post!') || k.startsWith('!term!') || k.startsWith('!surf!')), 'no index in LevelDB');
    // classic-level 3 never frees its copy of an empty value (one malloc
    // chunk per write): no write may carry one.
    assert.deepEqual((await indexEntries(dataDir, true)).filter(([, v]) => v === '').map(([k]) => k), []);

    await makeOld(dataDir);
    assert.ok((await indexEntries(dataDir)).some(([k]) => k.startsWith('!post!')));
    const rebuilt = await reopen(store, dataDir);
    assert.deepEqual(await answers(rebuilt), before);
    assert.deepEqual((await rebuilt.listAgents({})).agents, [
      { agentId: 'a', facts: 4, checkpoints: 0 },
      { agentId: 'b', facts: 7, checkpoints: 0 },
      { agentId: 'c', facts: 0, checkpoints: 1 },
    ]);
    await rebuilt.close();
    assert.deepEqual(await indexEntries(dataDir), kept);
  });

  test('a store of this version opens without recounting', async () => {
    const { store, dataDir } = await openTempStore();
    await store.addFact({ agentId: 'a', content: 'one fact of five words' });
    await store.close();
    const db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await db.open();
    // Counters the facts do not give: a recount would set them right.
    const off = JSON.stringify({ facts: 1, checkpoints: 0, length: 99 });
    await db.put('!stats!a', sealValue('!stats!a', off));
    await db.close();
    await (await reopen(store, dataDir)).close();
    const after = await indexEntries(dataDir);
    assert.deepEqual(after.find(([k]) => k === '!stats!a')?.[1], sealValue('!stats!a', off), 'the counters were left as they were');
  });
});
