import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

/** Counts by reading every record, to check the kept counters against. */
async function recount(store: MemoryStore) {
  const perAgent = new Map<string, { facts: number; checkpoints: number }>();
  let cursor: string | undefined;
  do {
    const page = await store.exportPage(cursor === undefined ? { limit: 7 } : { cursor });
    for (const r of page.records) {
      const c = perAgent.get(r.agentId) ?? { facts: 0, checkpoints: 0 };
      if (r.type === 'checkpoint') c.checkpoints++;
      else if (r.supersededBy === undefined && r.deletedAt === undefined) c.facts++;
      perAgent.set(r.agentId, c);
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  const agents = [...perAgent]
    .filter(([, c]) => c.facts + c.checkpoints > 0)
    .map(([agentId, c]) => ({ agentId, ...c }))
    .sort((x, y) => (x.agentId < y.agentId ? -1 : 1));
  const sum = (k: 'facts' | 'checkpoints') => agents.reduce((n, a) => n + a[k], 0);
  return { agents, totals: { facts: sum('facts'), checkpoints: sum('checkpoints'), agents: agents.length } };
}

async function assertCounters(store: MemoryStore, expected: Awaited<ReturnType<typeof recount>>) {
  assert.deepEqual(await store.listAgents({}), { agents: expected.agents });
  assert.deepEqual(await store.counts(), expected.totals);
  assert.deepEqual(await recount(store), expected);
}

test('counters stay exact through adds, duplicates, updates, deletes, checkpoints, concurrency and reopen', async () => {
  const { store, dataDir } = await openTempStore();
  assert.deepEqual(await store.counts(), { facts: 0, checkpoints: 0, agents: 0 });
  assert.deepEqual(await store.listAgents({}), { agents: [] });

  const x1 = await store.addFact({ agentId: 'x', content: 'one' });
  await store.addFact({ agentId: 'x', content: 'ONE' }); // duplicate
  const x2 = await store.addFact({ agentId: 'x', content: 'two' });
  await store.reflect({ agentId: 'x', action: 'update', factId: x1.factId, content: 'uno' });
  await store.reflect({ agentId: 'x', action: 'update', factId: x2.factId, content: 'Uno' }); // onto existing
  await store.saveCheckpoint({ agentId: 'x', state: {} });
  await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? store.saveCheckpoint({ agentId: `y${i % 2}`, state: { i } })
        : store.addFact({ agentId: `y${i % 2}`, content: `text ${i % 6}` }),
    ),
  );
  const z = await store.addFact({ agentId: 'z', content: 'only fact' });
  await store.reflect({ agentId: 'z', action: 'delete', factId: z.factId }); // z leaves agent.list

  const expected = {
    agents: [
      { agentId: 'x', facts: 1, checkpoints: 1 },
      { agentId: 'y0', facts: 2, checkpoints: 5 },
      { agentId: 'y1', facts: 2, checkpoints: 5 },
    ],
    totals: { facts: 5, checkpoints: 11, agents: 3 },
  };
  await assertCounters(store, expected);

  const reopened = await reopen(store, dataDir);
  await assertCounters(reopened, expected);

  // Counting goes on from the persisted values.
  await reopened.addFact({ agentId: 'z', content: 'back again' });
  await assertCounters(reopened, {
    agents: [...expected.agents, { agentId: 'z', facts: 1, checkpoints: 0 }],
    totals: { facts: 6, checkpoints: 11, agents: 4 },
  });
});
