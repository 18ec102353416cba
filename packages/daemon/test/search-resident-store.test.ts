// The store's two ways of answering a search, against each other on a real
// LevelDB: the agent's index in memory (loaded after its first search,
// while adds, updates and deletes keep landing) must answer every query
// exactly as the LevelDB index does on the same store reopened with no
// search memory, and follow every later write.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MemoryStore } from '@memoryd/daemon';
import { prng as random } from '@memoryd/test-support';
import { monotonicFactory } from 'ulid';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

const AGENT = 'resident';
const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${(i * 7919) % 1000}${'abcdefgh'[i % 8]}${i % 3 === 0 ? 'ing' : ''}`);

function text(rand: () => number): string {
  return Array.from({ length: 3 + Math.floor(rand() * 10) }, () => VOCABULARY[Math.floor(VOCABULARY.length * rand() ** 1.5)]!).join(' ');
}

function queries(rand: () => number, count: number): string[] {
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCABULARY[Math.floor(rand() * VOCABULARY.length)]!);
    if (rand() < 0.4) words[words.length - 1] = words[words.length - 1]!.slice(0, 2 + Math.floor(rand() * 2));
    return words.join(' ');
  });
}

async function answers(store: MemoryStore, qs: readonly string[]) {
  const out = [];
  for (const query of qs) out.push((await store.searchFacts({ agentId: AGENT, query, limit: 10 })).facts);
  return out;
}

/** Waits (bounded) until the store holds `agents` indexes in memory. */
async function untilResident(store: MemoryStore, agents: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (store.searchMemory().agents !== agents) {
    if (Date.now() > deadline) assert.fail(`no index in memory after 20 s: ${JSON.stringify(store.searchMemory())}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('search from memory', () => {
  test('answers as the LevelDB index does, through writes during and after the load', async () => {
    const rand = random(43);
    const { store, dataDir } = await openTempStore();
    const newId = monotonicFactory();
    const records = Array.from({ length: 4000 }, () => ({
      type: 'fact' as const,
      agentId: AGENT,
      id: newId(),
      content: text(rand),
      createdAt: new Date().toISOString(),
      ...(rand() < 0.2 ? { tags: [VOCABULARY[Math.floor(rand() * VOCABULARY.length)]!] } : {}),
    }));
    for (let i = 0; i < records.length; i += 1000) await store.importRecords({ records: records.slice(i, i + 1000) });
    const ids = records.map((r) => r.id);

    // The first search queues the load; writes race it.
    const writes: Array<Promise<unknown>> = [store.searchFacts({ agentId: AGENT, query: 'w0a', limit: 5 })];
    for (let i = 0; i < 60; i++) {
      writes.push(store.addFact({ agentId: AGENT, content: `${text(rand)} fresh${i}` }));
      const victim = ids.splice(Math.floor(rand() * ids.length), 1)[0]!;
      writes.push(
        i % 2 === 0
          ? store.reflect({ agentId: AGENT, action: 'delete', factId: victim })
          : store.reflect({ agentId: AGENT, action: 'update', factId: victim, content: `${text(rand)} updated${i}` }),
      );
    }
    await Promise.all(writes);
    await untilResident(store, 1);

    const qs = [...queries(rand, 150), 'fresh1', 'fresh3 w0a', 'updated7', 'updated'];
    const fromMemory = await answers(store, qs);
    assert.ok(fromMemory.some((facts) => facts.length > 0));
    for (const [i, word] of ['fresh1', 'fresh3', 'updated7'].entries()) assert.ok(fromMemory[150 + i]!.length > 0, `${word} is found`);

    // After the load: a write is seen by the next search.
    const added = await store.addFact({ agentId: AGENT, content: 'zzyzx appears late' });
    assert.deepEqual((await store.searchFacts({ agentId: AGENT, query: 'zzyzx' })).facts.map((f) => f.id), [added.factId]);
    await store.reflect({ agentId: AGENT, action: 'delete', factId: added.factId });
    assert.deepEqual((await store.searchFacts({ agentId: AGENT, query: 'zzyzx' })).facts, []);

    const fromStore = await answers(await reopen(store, dataDir, { searchMemoryPostings: 0 }), qs);
    assert.deepEqual(fromMemory, fromStore);
  });

  test('an agent over the budget is never held; the least recently searched goes first', async () => {
    const rand = random(47);
    const { store } = await openTempStore({ searchMemoryPostings: 2_000 });
    for (const agentId of ['small-a', 'small-b', 'large']) {
      const facts = agentId === 'large' ? 400 : 60;
      for (let i = 0; i < facts; i++) await store.addFact({ agentId, content: `${text(rand)} n${i}` });
    }
    await store.searchFacts({ agentId: 'large', query: 'w0a' });
    await store.searchFacts({ agentId: 'small-a', query: 'w0a' });
    await untilResident(store, 1);
    await store.searchFacts({ agentId: 'small-b', query: 'w0a' });
    await untilResident(store, 2);
    const { postings } = store.searchMemory();
    assert.ok(postings > 0 && postings <= 2_000, `${postings} postings held`);
  });
});
