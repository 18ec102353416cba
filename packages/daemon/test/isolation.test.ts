// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Conventions": no agentId can read or write another agent's keys,
// whatever it contains; agentIds are case-sensitive. The ids are chosen so
// that any key separator or prefix scheme ('.', ':', '@', '-', case) would
// let one agent's range overlap another's if the layout were naive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AdminExport,
  AgentList,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  MemoryAdd,
  MemoryList,
  MemorySearch,
} from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertError } from './helpers/rpc.js';

const agents = ['a', 'a.', 'a:', 'a@', 'A', 'a-b', 'a.b', 'a..', 'a:b', 'a@b', 'a_', 'b', '-', '.', ':', '@', 'a'.repeat(128)];
const facts = new Map<string, string[]>();
const checkpoints = new Map<string, string>();

const shared = useDaemon({}, { setup: populateAll });

async function populateAll(): Promise<void> {
  for (const agentId of agents) {
    // Same text for everyone: idempotence must also be per agent.
    const shared1 = await shared.client.ok(MemoryAdd, { agentId, content: 'common secret word' });
    assert.equal(shared1.duplicate, undefined, `${agentId}: another agent's fact counted as a duplicate`);
    const own = await shared.client.ok(MemoryAdd, { agentId, content: `owned by ${JSON.stringify(agentId)}` });
    facts.set(agentId, [shared1.factId, own.factId]);
    const cp = await shared.client.ok(CheckpointSave, { agentId, state: { owner: agentId } });
    checkpoints.set(agentId, cp.checkpointId);
  }
}

describe('agent isolation', () => {
  it('memory.list shows only the agent\'s own facts', async () => {
    for (const agentId of agents) {
      const r = await shared.client.ok(MemoryList, { agentId, limit: 100 });
      assert.deepEqual(r.facts.map((f) => f.id), facts.get(agentId), agentId);
    }
  });

  it('memory.search finds only the agent\'s own facts', async () => {
    for (const agentId of agents) {
      const r = await shared.client.ok(MemorySearch, { agentId, query: 'common secret owned', limit: 100 });
      assert.deepEqual(r.facts.map((f) => f.id).sort(), [...facts.get(agentId)!].sort(), agentId);
    }
  });

  it('checkpoint.resume and checkpoint.list see only the agent\'s own checkpoints', async () => {
    for (const agentId of agents) {
      const r = await shared.client.ok(CheckpointResume, { agentId });
      assert.ok('checkpoint' in r);
      assert.equal(r.checkpoint.id, checkpoints.get(agentId), agentId);
      assert.deepEqual(r.checkpoint.state, { owner: agentId });
      const l = await shared.client.ok(CheckpointList, { agentId, limit: 100 });
      assert.deepEqual(l.checkpoints.map((c) => c.id), [checkpoints.get(agentId)], agentId);
    }
  });

  it('admin.export with agentId returns only that agent\'s records', async () => {
    for (const agentId of agents) {
      const r = await shared.client.ok(AdminExport, { agentId, limit: 1000 });
      assert.equal(r.cursor, undefined);
      assert.ok(r.records.every((x) => x.agentId === agentId), agentId);
      assert.deepEqual(r.records.map((x) => x.id), [...facts.get(agentId)!, checkpoints.get(agentId)], agentId);
    }
  });

  it('agent.list counts each agent separately', async () => {
    const r = await shared.client.ok(AgentList, {});
    for (const agentId of agents) {
      assert.deepEqual(
        r.agents.filter((a) => a.agentId === agentId),
        [{ agentId, facts: 2, checkpoints: 1 }],
        agentId,
      );
    }
  });

  it('no agent can resume, update or delete another agent\'s records by id', async () => {
    const c = shared.client;
    for (const [i, agentId] of agents.entries()) {
      const other = agents[(i + 1) % agents.length]!;
      const theirFact = facts.get(other)![1]!;
      assertError(await c.call('checkpoint.resume', { agentId, checkpointId: checkpoints.get(other) }), -32004);
      assertError(await c.call('memory.reflect', { agentId, action: 'delete', factId: theirFact }), -32004);
      assertError(
        await c.call('memory.reflect', { agentId, action: 'update', factId: theirFact, content: 'hijacked' }),
        -32004,
      );
    }
    // Nothing moved.
    for (const agentId of agents) {
      const r = await c.ok(MemoryList, { agentId, limit: 100 });
      assert.deepEqual(r.facts.map((f) => f.id), facts.get(agentId), agentId);
      assert.ok(!r.facts.some((f) => f.content === 'hijacked'));
    }
  });

  it('a delete by one agent leaves a look-alike agent untouched', async () => {
    const c = shared.client;
    const [, own] = facts.get('a.')!;
    const r = await c.call('memory.reflect', { agentId: 'a.', action: 'delete', factId: own });
    assert.equal(r.error, undefined);
    for (const agentId of ['a', 'a..', 'a.b', 'A']) {
      assert.equal((await c.ok(MemoryList, { agentId })).facts.length, 2, agentId);
    }
    assert.equal((await c.ok(MemoryList, { agentId: 'a.' })).facts.length, 1);
    facts.set('a.', facts.get('a.')!.slice(0, 1));
  });
});
