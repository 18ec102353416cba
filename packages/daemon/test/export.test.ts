// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "admin.export" and "Export and import", the export
// half: records and their order (by agentId, facts before checkpoints, each by id; every fact version
// with supersededBy/updatedAt/deletedAt), the consistent snapshot a cursor
// continues (writes between pages are invisible), the cursor overriding
// other params, the last page without a cursor, limit default 100, and an
// idle cursor that expires.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminExport, CheckpointSave, type ExportRecord, MemoryAdd, MemoryReflect } from '@memoryd/protocol';
import { startDaemon } from '@memoryd/test-support';
import { exportAll, populate } from './helpers/export-data.js';
import { useDaemon } from './helpers/fixture.js';
import { assertInvalidParams, connect } from './helpers/rpc.js';
import { assertKeys } from './helpers/shapes.js';

let full: ExportRecord[];
let made: Awaited<ReturnType<typeof populate>>;
const shared = useDaemon(
  {},
  {
    setup: async (s) => {
      made = await populate(s.client);
      full = await exportAll(s.client, 1000);
    },
  },
);

describe('admin.export records', () => {
  it('are ordered by agentId, then facts before checkpoints, each by id', () => {
    const key = (r: ExportRecord) => [r.agentId, r.type === 'fact' ? 0 : 1, r.id] as const;
    const sorted = [...full].sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
    });
    assert.deepEqual(full.map(key), sorted.map(key));
    assert.deepEqual([...new Set(full.map((r) => r.agentId))], ['exp-A', 'exp-a', 'exp-a.', 'exp-b']);
    assert.ok(full.every((r) => r.type === 'fact' || r.type === 'checkpoint'), 'fact and checkpoint records only, no header');
  });

  it('hold every fact version: current, superseded (supersededBy, updatedAt) and deleted (deletedAt)', () => {
    const byId = new Map(full.map((r) => [r.id, r]));
    const old = byId.get(made.superseded)!;
    assert.equal(old.type, 'fact');
    assertKeys(old, ['type', 'agentId', 'id', 'content', 'createdAt', 'updatedAt', 'supersededBy'], 'superseded version');
    assert.equal((old as { supersededBy?: string }).supersededBy, made.successor);
    const del = byId.get(made.deleted)!;
    assertKeys(del, ['type', 'agentId', 'id', 'content', 'createdAt', 'deletedAt'], 'deleted version');
    const current = byId.get(made.successor)!;
    assertKeys(current, ['type', 'agentId', 'id', 'content', 'createdAt'], 'current version');
    const tagged = byId.get(made.tagged)!;
    assert.deepEqual((tagged as { tags?: string[] }).tags, ['t1', 't2']);
  });

  it('hold checkpoints whole, with messageCount only when saved', () => {
    const cps = full.filter((r) => r.type === 'checkpoint');
    assert.equal(cps.length, made.checkpoints.length);
    for (const { id, state, messageCount } of made.checkpoints) {
      const r = cps.find((x) => x.id === id)!;
      const keys = ['type', 'agentId', 'id', 'createdAt', 'state', ...(messageCount === undefined ? [] : ['messageCount'])];
      assertKeys(r, keys, 'checkpoint record');
      assert.deepEqual((r as { state: unknown }).state, state);
    }
  });

  it('filter by agentId', async () => {
    const r = await shared.client.ok(AdminExport, { agentId: 'exp-a.', limit: 1000 });
    assert.deepEqual(r.records, full.filter((x) => x.agentId === 'exp-a.'));
    assert.equal('cursor' in r, false);
  });
});

describe('admin.export paging', () => {
  it('a cursor continues a snapshot: writes made between pages are invisible', async () => {
    const c = shared.client;
    const first = await c.ok(AdminExport, { limit: 2 });
    assert.equal(first.records.length, 2);
    assert.ok(first.cursor);
    // Writes of every kind, including a new agent that sorts first.
    await c.ok(MemoryAdd, { agentId: 'exp-0', content: 'born after the snapshot' });
    await c.ok(MemoryAdd, { agentId: 'exp-b', content: 'also after the snapshot' });
    await c.ok(MemoryReflect, { agentId: 'exp-a', action: 'update', factId: made.current[0]!, content: 'changed after' });
    await c.ok(MemoryReflect, { agentId: 'exp-a', action: 'delete', factId: made.current[1]! });
    await c.ok(CheckpointSave, { agentId: 'exp-A', state: { late: true } });
    const pages = [first.records];
    let cursor: string | undefined = first.cursor;
    while (cursor !== undefined) {
      // With a cursor, the other params are ignored.
      const r: { records: ExportRecord[]; cursor?: string } = await c.ok(AdminExport, { cursor, agentId: 'exp-b', limit: 1000 });
      pages.push(r.records);
      if (r.cursor !== undefined) assert.equal(r.records.length, 2, 'page size stays the first call\'s');
      cursor = r.cursor;
    }
    assert.deepEqual(pages.flat(), full);
    assert.ok(pages.length >= 3);
  });

  it('defaults to 100 records a page', async () => {
    for (let i = 0; i < 120; i++) await shared.client.ok(MemoryAdd, { agentId: 'exp-many', content: `many ${i}` });
    const r = await shared.client.ok(AdminExport, { agentId: 'exp-many' });
    assert.equal(r.records.length, 100);
    assert.ok(r.cursor);
    const last = await shared.client.ok(AdminExport, { cursor: r.cursor });
    assert.equal(last.records.length, 20);
    assert.equal('cursor' in last, false, 'the last page has no cursor');
  });

  it('rejects a cursor it never issued with -32602 on cursor', async () => {
    assertInvalidParams(await shared.client.fail('admin.export', { cursor: 'not-a-cursor' }), 'cursor');
  });
});

describe('export cursor expiry', () => {
  it('an idle cursor expires; one in use does not', async () => {
    const d = await startDaemon({ args: ['--export-cursor-ttl', '1000'] });
    const c = await connect(d.socket);
    for (let i = 0; i < 12; i++) await c.ok(MemoryAdd, { agentId: 'ttl', content: `ttl ${i}` });
    // In use: a page every 250 ms for longer than the TTL keeps it alive.
    let r = await c.ok(AdminExport, { limit: 1 });
    for (let i = 0; i < 6; i++) {
      await new Promise((res) => setTimeout(res, 250));
      r = await c.ok(AdminExport, { cursor: r.cursor! });
      assert.ok(r.cursor);
    }
    // Idle for twice the TTL: gone. Waiting is the point of this case.
    await new Promise((res) => setTimeout(res, 2000));
    assertInvalidParams(await c.fail('admin.export', { cursor: r.cursor! }), 'cursor');
    c.socket.destroy();
    await d.stop();
  });
});
