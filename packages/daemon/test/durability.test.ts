// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/operations.md "Durability": a write is acknowledged only after LevelDB has
// it (sync by default); SIGKILL at any moment loses no acknowledged write.
// Several connections stream memory.add and checkpoint.save; the daemon is
// killed while writes are in flight; the next daemon on the same data dir
// must hold every acknowledged id (checked by paging memory.list and
// checkpoint.list, and by admin.export).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CheckpointResume, MemoryAdd } from '@memoryd/protocol';
import { cleanupAll, startDaemon, waitFor } from '@memoryd/test-support';
import { exportedRecords, listedCheckpoints, listedFacts } from './helpers/read-all.js';
import { connect, type RpcClient } from './helpers/rpc.js';

after(cleanupAll);

async function allFactIds(c: RpcClient, agentId: string): Promise<Set<string>> {
  return new Set((await listedFacts(c, agentId)).keys());
}

async function allCheckpointIds(c: RpcClient, agentId: string): Promise<Set<string>> {
  return new Set(await listedCheckpoints(c, agentId));
}

async function exportIds(c: RpcClient): Promise<Set<string>> {
  return new Set((await exportedRecords(c)).map((rec) => `${rec.agentId}/${rec.id}`));
}

describe('SIGKILL', () => {
  it('loses no acknowledged write from a single add', async () => {
    const d = await startDaemon();
    const c = await connect(d.socket);
    const a = await c.ok(MemoryAdd, { agentId: 'one', content: 'acknowledged then killed' });
    await d.kill();
    const d2 = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    const c2 = await connect(d2.socket);
    assert.deepEqual([...(await allFactIds(c2, 'one'))], [a.factId]);
    c2.socket.destroy();
    await d2.stop();
  });

  it('loses no acknowledged write from several connections streaming adds and checkpoints', async () => {
    const d = await startDaemon();
    const writers = 6;
    const ackedFacts = new Map<string, string[]>();
    const ackedCps = new Map<string, Array<{ id: string; n: number }>>();
    let acks = 0;
    let stop = false;
    const loops: Array<Promise<void>> = [];
    for (let w = 0; w < writers; w++) {
      const c = await connect(d.socket);
      const agentId = `dur-${w}`;
      ackedFacts.set(agentId, []);
      ackedCps.set(agentId, []);
      loops.push(
        (async () => {
          // Each writer keeps 4 requests in flight, so the kill lands mid-write.
          let n = 0;
          const one = async (): Promise<void> => {
            while (!stop) {
              const i = n++;
              const r =
                i % 3 === 2
                  ? await c.call('checkpoint.save', { agentId, state: { n: i, pad: 'p'.repeat(200) }, messageCount: i })
                  : await c.call('memory.add', { agentId, content: `durable fact ${i} of ${agentId}` });
              if (r.error !== undefined) throw new Error(JSON.stringify(r.error));
              const res = r.result as { factId?: string; checkpointId?: string };
              if (res.factId) ackedFacts.get(agentId)!.push(res.factId);
              else ackedCps.get(agentId)!.push({ id: res.checkpointId!, n: i });
              acks++;
            }
          };
          await Promise.all([one(), one(), one(), one()]).catch(() => undefined); // the kill ends them
        })(),
      );
    }
    await waitFor(() => acks >= 600, 60_000, '600 acknowledged writes');
    await d.kill();
    stop = true;
    await Promise.all(loops);

    const d2 = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    const c2 = await connect(d2.socket);
    const exported = await exportIds(c2);
    let checked = 0;
    for (const [agentId, ids] of ackedFacts) {
      const stored = await allFactIds(c2, agentId);
      for (const id of ids) {
        assert.ok(stored.has(id), `acknowledged fact ${id} of ${agentId} survived`);
        assert.ok(exported.has(`${agentId}/${id}`));
        checked++;
      }
    }
    for (const [agentId, cps] of ackedCps) {
      const stored = await allCheckpointIds(c2, agentId);
      for (const { id } of cps) {
        assert.ok(stored.has(id), `acknowledged checkpoint ${id} of ${agentId} survived`);
        assert.ok(exported.has(`${agentId}/${id}`));
        checked++;
      }
      // Spot-check whole records: the latest acknowledged checkpoint reads back intact.
      const last = cps[cps.length - 1];
      if (last) {
        const r = await c2.ok(CheckpointResume, { agentId, checkpointId: last.id });
        assert.ok('checkpoint' in r);
        assert.equal(r.checkpoint.messageCount, last.n);
        assert.deepEqual(r.checkpoint.state, { n: last.n, pad: 'p'.repeat(200) });
      }
    }
    assert.ok(checked >= 600, `checked ${checked} acknowledged writes`);
    c2.socket.destroy();
    assert.deepEqual(await d2.stop(), { code: 0, signal: null });
  });
});
