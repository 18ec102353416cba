// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "admin.import" and "Export and import", the import
// half: ids and times kept as given, in any order within or across calls; history survives a round
// trip; a record whose id the agent already has is skipped (importing the
// same export twice adds nothing); a record that fails validation is
// rejected with its index, code -32602 and a reason while the rest import.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AdminImport,
  AgentList,
  CheckpointResume,
  DaemonStatus,
  type ExportRecord,
  MemoryList,
  MemorySearch,
} from '@memoryd/protocol';
import { type DaemonHandle, makeUlid, startDaemon } from '@memoryd/test-support';
import { exportAll, populate, type Populated } from './helpers/export-data.js';
import { useDaemon } from './helpers/fixture.js';
import { connect, type RpcClient } from './helpers/rpc.js';

let records: ExportRecord[];
let made: Populated;
const source = useDaemon(
  {},
  {
    setup: async (s) => {
      made = await populate(s.client);
      records = await exportAll(s.client, 3);
    },
  },
);

async function fresh(): Promise<{ d: DaemonHandle; c: RpcClient }> {
  const d = await startDaemon();
  return { d, c: await connect(d.socket) };
}

async function views(c: RpcClient) {
  const agents = (await c.ok(AgentList, {})).agents.sort((a, b) => (a.agentId < b.agentId ? -1 : 1));
  const lists: Record<string, unknown> = {};
  for (const a of agents) {
    lists[a.agentId] = {
      facts: (await c.ok(MemoryList, { agentId: a.agentId, limit: 100 })).facts,
      latest: await c.ok(CheckpointResume, { agentId: a.agentId, reportNotFound: true }),
    };
  }
  const s = await c.ok(DaemonStatus, {});
  return { agents, lists, counts: [s.facts, s.checkpoints, s.agents] };
}

describe('admin.import', () => {
  it('round-trips an export into a fresh daemon, history included', async () => {
    const { d, c } = await fresh();
    const r = await c.ok(AdminImport, { records });
    assert.deepEqual(r, { imported: records.length, skipped: 0, rejected: [] });
    assert.deepEqual(await exportAll(c, 1000), records, 'the same records, ids and times');
    assert.deepEqual(await views(c), await views(source.client));
    // The search index covers imported facts, and history stays out of it.
    // 8080 is only in the superseded version and 9090 only in its
    // successor: the successor ranks first, the history never shows.
    const hits = await c.ok(MemorySearch, { agentId: 'exp-a', query: 'server 8080 9090' });
    assert.deepEqual(hits.facts.map((f) => f.id), [made.successor]);

    const again = await c.ok(AdminImport, { records });
    assert.deepEqual(again, { imported: 0, skipped: records.length, rejected: [] }, 'a second import adds nothing');
    assert.deepEqual(await exportAll(c, 1000), records);
    c.socket.destroy();
    await d.stop();
  });

  it('accepts records in any order, within and across calls', async () => {
    const { d, c } = await fresh();
    const reversed = [...records].reverse();
    const half = Math.floor(reversed.length / 2);
    const a = await c.ok(AdminImport, { records: reversed.slice(0, half) });
    const b = await c.ok(AdminImport, { records: reversed.slice(half) });
    assert.equal(a.imported + b.imported, records.length);
    assert.deepEqual(await exportAll(c, 1000), records);
    assert.deepEqual(await views(c), await views(source.client));
    c.socket.destroy();
    await d.stop();
  });

  it('rejects invalid records by index with -32602 and a reason, importing the rest', async () => {
    const { d, c } = await fresh();
    const good = (i: number): ExportRecord => ({
      type: 'fact',
      agentId: 'imp-mixed',
      id: makeUlid(1_600_000_000_000 + i, i),
      content: `good ${i}`,
      createdAt: new Date(1_600_000_000_000 + i).toISOString(),
    });
    const batch: unknown[] = [
      good(0),
      { ...good(1), agentId: 'bad agent' },
      good(2),
      { ...good(3), content: '   ' },
      { ...good(4), type: 'memo' },
      good(5),
      null,
      { ...good(7), id: 'not-a-ulid' },
      { type: 'checkpoint', agentId: 'imp-mixed', id: makeUlid(1_600_000_000_100, 8), createdAt: '2020-09-13T12:26:40.100Z', state: [] },
      { type: 'checkpoint', agentId: 'imp-mixed', id: makeUlid(1_600_000_000_100, 9), createdAt: '2020-09-13T12:26:40.100Z', state: { ok: 1 }, messageCount: 3 },
      { ...good(10), createdAt: 'yesterday' },
      { ...good(11), tags: null },
    ];
    const r = await c.ok(AdminImport, { records: batch });
    assert.equal(r.imported, 4);
    assert.equal(r.skipped, 0);
    assert.deepEqual(r.rejected.map((x) => x.index), [1, 3, 4, 6, 7, 8, 10, 11]);
    for (const x of r.rejected) {
      assert.equal(x.code, -32602);
      assert.equal(typeof x.reason, 'string');
      assert.ok(x.reason.length > 0);
    }
    const listed = (await c.ok(MemoryList, { agentId: 'imp-mixed' })).facts;
    assert.deepEqual(listed, [0, 2, 5].map((i) => {
      const g = good(i) as { id: string; content: string; createdAt: string };
      return { id: g.id, content: g.content, createdAt: g.createdAt };
    }));
    const cp = await c.ok(CheckpointResume, { agentId: 'imp-mixed' });
    assert.deepEqual(cp, {
      checkpoint: { id: makeUlid(1_600_000_000_100, 9), createdAt: '2020-09-13T12:26:40.100Z', state: { ok: 1 }, messageCount: 3 },
    });
    c.socket.destroy();
    await d.stop();
  });

  it('skips an id the agent already has without overwriting it; the same id under another agent imports', async () => {
    const c = source.client;
    const existing = records.find((r) => r.type === 'fact' && r.agentId === 'exp-b')!;
    const clash = { ...existing, content: 'an impostor version' };
    const elsewhere = { ...existing, agentId: 'exp-b2' };
    const r = await c.ok(AdminImport, { records: [clash, elsewhere] });
    assert.deepEqual(r, { imported: 1, skipped: 1, rejected: [] });
    const b = await c.ok(MemoryList, { agentId: 'exp-b' });
    assert.equal(b.facts.find((f) => f.id === existing.id)?.content, (existing as { content: string }).content);
    const b2 = await c.ok(MemoryList, { agentId: 'exp-b2' });
    assert.deepEqual(b2.facts.map((f) => f.id), [existing.id]);
  });
});
