// The agents' search indexes share a memory budget: past it, the least
// recently used go back to their images, and come back from them at their
// next search. An agent sent back answers exactly as before, takes writes
// while in its image, and the answers survive a restart.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { prng as random } from '@memoryd/test-support';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

const AGENTS = Array.from({ length: 8 }, (_, i) => `agent-${i}`);

/** Words of an agent's own: each agent's vocabulary is large (the dictionary is what an index costs most). */
function text(rand: () => number, agent: number): string {
  return Array.from({ length: 4 + Math.floor(rand() * 8) }, () => `a${agent}w${Math.floor(3000 * rand() ** 2)}`).join(' ');
}

async function answers(store: MemoryStore, agentId: string, qs: readonly string[]) {
  const out = [];
  for (const query of qs) out.push((await store.searchFacts({ agentId, query, limit: 10 })).facts);
  return out;
}

describe('search index memory budget', () => {
  test('the least recently used indexes go back to their images and answer alike', async () => {
    const rand = random(67);
    // About what two of these agents' indexes take: the rest must wait in images.
    const { store, dataDir } = await openTempStore({ indexMemoryBytes: 1_500_000 });
    const unlimited = await openTempStore();
    for (const [a, agentId] of AGENTS.entries()) {
      const records = Array.from({ length: 1500 }, () => ({ type: 'fact' as const, agentId, content: text(rand, a) }));
      const id = () => `01${Array.from({ length: 24 }, () => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Math.floor(rand() * 32)]).join('')}`;
      const stamped = records.map((r) => ({ ...r, id: id(), createdAt: new Date().toISOString() }));
      await store.importRecords({ records: stamped });
      await unlimited.store.importRecords({ records: stamped });
    }
    const inMemory = store.searchMemory().agents;
    assert.ok(inMemory < AGENTS.length, `indexes past the budget went back to their images (${inMemory} of ${AGENTS.length} in memory)`);
    assert.equal(unlimited.store.searchMemory().agents, AGENTS.length);

    const qs = (a: number) => Array.from({ length: 40 }, (_, i) => `a${a}w${Math.floor(3000 * rand() ** 2)}${i % 5 === 0 ? ` a${a}w${i}` : ''}`);
    const queries = AGENTS.map((_, a) => qs(a));
    // Every agent in turn: each search may send another back.
    for (let round = 0; round < 2; round++) {
      for (const [a, agentId] of AGENTS.entries()) {
        assert.deepEqual(await answers(store, agentId, queries[a]!), await answers(unlimited.store, agentId, queries[a]!), `${agentId}, round ${round}`);
      }
    }
    assert.ok(store.searchMemory().agents < AGENTS.length);

    // Writes to agents sent back wait in their images and are in the answers.
    for (const [a, agentId] of AGENTS.entries()) {
      const added = await store.addFact({ agentId, content: `late${a} ${text(rand, a)}` });
      await unlimited.store.addFact({ agentId, content: 'placeholder' });
      assert.deepEqual((await store.searchFacts({ agentId, query: `late${a}` })).facts.map((f) => f.id), [added.factId]);
    }

    // And a restart brings every answer back.
    const want = [];
    for (const [a, agentId] of AGENTS.entries()) want.push(await answers(store, agentId, [...queries[a]!, `late${a}`]));
    const again = await reopen(store, dataDir, { indexMemoryBytes: 1_500_000 });
    for (const [a, agentId] of AGENTS.entries()) assert.deepEqual(await answers(again, agentId, [...queries[a]!, `late${a}`]), want[a]);
  });

  test('writes spread over many agents fold into their images instead of piling up in memory', async () => {
    const rand = random(73);
    const budget = 1_500_000;
    const { store, dataDir } = await openTempStore({ indexMemoryBytes: budget });
    const unlimited = await openTempStore();
    const id = () => `01${Array.from({ length: 24 }, () => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Math.floor(rand() * 32)]).join('')}`;
    // Batches of 200 records, each spread over every agent, as a restore of many agents comes.
    let most = 0;
    for (let batch = 0; batch < 60; batch++) {
      const records = Array.from({ length: 200 }, (_, i) => {
        const a = i % AGENTS.length;
        return { type: 'fact' as const, agentId: AGENTS[a]!, id: id(), content: text(rand, a), createdAt: new Date().toISOString() };
      });
      await store.importRecords({ records });
      await unlimited.store.importRecords({ records });
      most = Math.max(most, store.searchMemory().bytes);
    }
    // One agent may stand past the budget alone (the one in use); the rest waits in images.
    const { bytes: unlimitedBytes } = unlimited.store.searchMemory();
    assert.ok(unlimitedBytes > 3 * budget, `the load takes far more than the budget without one (${unlimitedBytes})`);
    assert.ok(most < 2 * budget, `memory stayed near the budget (${most} bytes at most, budget ${budget})`);
    const qs = (a: number) => Array.from({ length: 30 }, () => `a${a}w${Math.floor(3000 * rand() ** 2)}`);
    const queries = AGENTS.map((_, a) => qs(a));
    for (const [a, agentId] of AGENTS.entries()) {
      assert.deepEqual(await answers(store, agentId, queries[a]!), await answers(unlimited.store, agentId, queries[a]!), agentId);
    }
    const again = await reopen(store, dataDir, { indexMemoryBytes: budget });
    for (const [a, agentId] of AGENTS.entries()) {
      assert.deepEqual(await answers(again, agentId, queries[a]!), await answers(unlimited.store, agentId, queries[a]!), `${agentId} after a restart`);
    }
  });
});
