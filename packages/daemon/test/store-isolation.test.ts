import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DaemonErrorCodes } from '@memoryd/daemon';
import { openTempStore, rejectsWith, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

// Ids that are prefixes of one another, differ only in case, or end in
// characters that sort next to a separator: none may see another's keys.
const AGENTS = ['a', 'a.', 'a:', 'a@', 'A', 'a.b', 'a-', 'a_'];

test('agents whose ids share prefixes or differ in case never see each other', async () => {
  const { store } = await openTempStore();
  const facts = new Map<string, string>();
  const checkpoints = new Map<string, string>();
  for (const agentId of AGENTS) {
    // The same text for everyone: dedup is per agent.
    const added = await store.addFact({ agentId, content: 'shared words here', tags: [agentId] });
    assert.equal(added.duplicate, undefined, agentId);
    facts.set(agentId, added.factId);
    checkpoints.set(agentId, (await store.saveCheckpoint({ agentId, state: { owner: agentId } })).checkpointId);
  }
  for (const agentId of AGENTS) {
    const own = facts.get(agentId)!;
    assert.deepEqual((await store.listFacts({ agentId })).facts.map((f) => f.id), [own], agentId);
    assert.deepEqual((await store.searchFacts({ agentId, query: 'shared' })).facts.map((f) => f.id), [own], agentId);
    const resumed = await store.resumeCheckpoint({ agentId });
    assert.ok('checkpoint' in resumed);
    assert.deepEqual(resumed.checkpoint.state, { owner: agentId });
    assert.deepEqual((await store.listCheckpoints({ agentId })).checkpoints.map((c) => c.id), [checkpoints.get(agentId)]);
    const exported = await store.exportPage({ agentId });
    assert.deepEqual(
      exported.records.map((r) => [r.agentId, r.id]),
      [
        [agentId, own],
        [agentId, checkpoints.get(agentId)],
      ],
    );
    for (const other of AGENTS.filter((o) => o !== agentId)) {
      await rejectsWith(
        store.reflect({ agentId, action: 'delete', factId: facts.get(other)! }),
        DaemonErrorCodes.NotFound,
      );
      assert.deepEqual(
        await store.resumeCheckpoint({ agentId, checkpointId: checkpoints.get(other)!, reportNotFound: true }),
        { notFound: true },
      );
    }
  }
  // Deleting `a`'s fact leaves every other agent's alone.
  await store.reflect({ agentId: 'a', action: 'delete', factId: facts.get('a')! });
  for (const agentId of AGENTS.slice(1)) assert.equal((await store.listFacts({ agentId })).facts.length, 1, agentId);
  assert.deepEqual(
    (await store.listAgents({})).agents.map((a) => a.agentId),
    [...AGENTS].sort(),
  );
});

test('key builders refuse an agentId outside the pattern (defence behind the RPC layer)', async () => {
  const { store } = await openTempStore();
  for (const agentId of ['', 'a\u0000b', 'a\u0001', 'a/b', 'a!b', 'x'.repeat(129)]) {
    await rejectsWith(store.addFact({ agentId, content: 'sneaky' }), DaemonErrorCodes.InvalidParams);
    await rejectsWith(store.listFacts({ agentId }), DaemonErrorCodes.InvalidParams);
    await rejectsWith(store.resumeCheckpoint({ agentId }), DaemonErrorCodes.InvalidParams);
  }
  assert.deepEqual(await store.counts(), { facts: 0, checkpoints: 0, agents: 0 });
});
