// Issue 12: a write that failed poisons nothing. The data dir is on a
// small tmpfs that the test fills to the last byte and frees again. Once a
// write fails, no later write is acknowledged until the daemon has
// reopened the store (a fresh LevelDB log); daemon.status says why writes
// are refused; reads go on; writes resume by themselves once space is
// back; and after a restart every acknowledged fact is listed and found
// by search. Without root (no tmpfs) these tests skip, saying why.
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, after, describe, it } from 'node:test';
import { CheckpointList, CheckpointSave, DaemonStatus, MemoryAdd, MemorySearch } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, fillDisk, mountTmpfs, prng, startDaemon, type Tmpfs, waitFor } from '@memoryd/test-support';
import { listedFacts } from './helpers/read-all.js';
import { type RpcClient, connect } from './helpers/rpc.js';

after(cleanupAll);

const STORAGE_ERROR = -32010;
/** How long the daemon may take to notice freed space and reopen the store (its backoff tops out at 5 s). */
const RECOVERY_MS = 20_000;

/** A word of letters only that no other fact holds, so a search for it finds its fact. */
function token(n: number): string {
  let s = '';
  for (let x = n + 1; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(97 + ((x - 1) % 26)) + s;
  return `zed${s}`;
}

function content(n: number): string {
  return `soak fact ${token(n)} about the release train and the staging database`;
}

async function health(c: RpcClient): Promise<string> {
  return (await c.ok(DaemonStatus, {})).health;
}

/** Restarts the daemon on the same paths and checks every acknowledged fact is listed and found. */
async function assertAllAfterRestart(d: DaemonHandle, acked: Map<string, { agentId: string; n: number }>): Promise<DaemonHandle> {
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
  const again = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
  const c = await connect(again.socket);
  const agents = new Set([...acked.values()].map((a) => a.agentId));
  const present = new Set<string>();
  for (const agentId of agents) for (const id of (await listedFacts(c, agentId)).keys()) present.add(id);
  const missing = [...acked.keys()].filter((id) => !present.has(id));
  assert.deepEqual(missing, [], `${missing.length} of ${acked.size} acknowledged facts are missing after the restart`);
  for (const [id, { agentId, n }] of acked) {
    const found = await c.ok(MemorySearch, { agentId, query: token(n), limit: 10 });
    assert.ok(found.facts.some((f) => f.id === id), `fact ${n} (${id}) is found by search`);
  }
  assert.equal(await health(c), 'ok');
  c.socket.destroy();
  return again;
}

/** Adds facts until one fails; returns the error and records what was acknowledged before. */
async function addUntilRefused(c: RpcClient, agentId: string, acked: Map<string, { agentId: string; n: number }>, next: () => number) {
  for (let i = 0; i < 100_000; i++) {
    const n = next();
    const r = await c.call('memory.add', { agentId, content: content(n) });
    if (r.error !== undefined) return r.error;
    acked.set((r.result as { factId: string }).factId, { agentId, n });
  }
  assert.fail('a full disk never refused a write');
}

/** A fresh 24 MiB tmpfs for one test, or undefined after marking the test skipped with the reason. */
function smallDisk(t: TestContext): Tmpfs | undefined {
  const fs = mountTmpfs(24);
  if ('skip' in fs) {
    t.skip(fs.skip);
    return undefined;
  }
  return fs;
}

describe('a full disk', () => {
  it('refuses writes once one fails, keeps serving reads, recovers when space is back, and loses nothing', async (t) => {
    const fs = smallDisk(t);
    if (fs === undefined) return;
    const dataDir = join(fs.dir, 'data');
    let d = await startDaemon({ dataDir });
    const c = await connect(d.socket);
    const acked = new Map<string, { agentId: string; n: number }>();
    let n = 0;
    for (; n < 50; n++) acked.set((await c.ok(MemoryAdd, { agentId: 'disk', content: content(n) })).factId, { agentId: 'disk', n });
    assert.equal(await health(c), 'ok');

    const free = fillDisk(fs.dir);
    const refused = await addUntilRefused(c, 'disk', acked, () => n++);
    assert.equal(refused.code, STORAGE_ERROR);
    assert.match(refused.message, /No space left on device/);
    assert.match(await health(c), /^read-only: .*No space left on device/);
    // While the disk is full: every write is refused, naming the cause; reads go on.
    for (let i = 0; i < 20; i++) {
      const r = await c.call('memory.add', { agentId: 'disk', content: content(n++) });
      assert.equal(r.error?.code, STORAGE_ERROR, 'no write is acknowledged while read-only');
      assert.match(r.error!.message, /read-only.*No space left on device|No space left on device/);
    }
    const r = await c.call('checkpoint.save', { agentId: 'disk', state: { step: 1 } });
    assert.equal(r.error?.code, STORAGE_ERROR);
    assert.equal((await listedFacts(c, 'disk')).size, acked.size);
    assert.ok((await c.ok(MemorySearch, { agentId: 'disk', query: token(3) })).facts.length > 0);

    free();
    await waitFor(async () => (await health(c)) === 'ok', RECOVERY_MS, 'health ok after space is back');
    for (let i = 0; i < 200; i++, n++) acked.set((await c.ok(MemoryAdd, { agentId: 'disk', content: content(n) })).factId, { agentId: 'disk', n });
    c.socket.destroy();
    d = await assertAllAfterRestart(d, acked);
    await d.stop();
  });

  it('survives fill, free, fill again three times with adds from 4 connections throughout', async (t) => {
    const fs = smallDisk(t);
    if (fs === undefined) return;
    const dataDir = join(fs.dir, 'soak');
    let d = await startDaemon({ dataDir });
    const watcher = await connect(d.socket);
    const acked = new Map<string, { agentId: string; n: number }>();
    let n = 0;
    let stop = false;
    let refusals = 0;
    const clients = await Promise.all([0, 1, 2, 3].map(() => connect(d.socket)));
    const writers = clients.map((c, w) => {
        const agentId = `soak-${w}`;
        return (async () => {
          while (!stop) {
            const i = n++;
            const r = await c.call('memory.add', { agentId, content: content(i) });
            if (r.error === undefined) acked.set((r.result as { factId: string }).factId, { agentId, n: i });
            else {
              assert.equal(r.error.code, STORAGE_ERROR, r.error.message);
              refusals++;
            }
            // Paced (some 100 adds a second each), so the store grows by little on a 24 MiB disk.
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          c.socket.destroy();
        })();
      });
    try {
      for (let cycle = 0; cycle < 3; cycle++) {
        const before = acked.size;
        await waitFor(() => acked.size >= before + 100, 30_000, `100 adds before filling (cycle ${cycle})`);
        const refusedBefore = refusals;
        const free = fillDisk(fs.dir, `filler-${cycle}`);
        await waitFor(async () => refusals > refusedBefore && (await health(watcher)).startsWith('read-only:'), 30_000, `writes refused (cycle ${cycle})`);
        free();
        await waitFor(async () => (await health(watcher)) === 'ok', RECOVERY_MS, `health ok again (cycle ${cycle})`);
      }
      const after = acked.size;
      await waitFor(() => acked.size >= after + 100, 30_000, '100 adds after the last cycle');
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    watcher.socket.destroy();
    d = await assertAllAfterRestart(d, acked);
    await d.stop();
  });

  it('recovers from a compaction that failed on a full disk, which LevelDB keeps failing every write over', async (t) => {
    const fs = smallDisk(t);
    if (fs === undefined) return;
    const dataDir = join(fs.dir, 'compaction');
    let d = await startDaemon({ dataDir });
    const c = await connect(d.socket);
    const storeDir = join(dataDir, 'store');
    const currentLog = () => readdirSync(storeDir).filter((f) => f.endsWith('.log')).sort().at(-1);
    const acked = new Map<string, { agentId: string; n: number }>();
    const checkpoints: string[] = [];
    const random = prng(12);
    // ~900 KB that snappy cannot shrink: a checkpoint this size is that much of LevelDB's 4 MiB memtable.
    const big = () => ({ blob: Array.from({ length: 900_000 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('') });
    const save = async (state: Record<string, unknown>) => checkpoints.push((await c.ok(CheckpointSave, { agentId: 'compact', state })).checkpointId);
    // Fill memtables until LevelDB switches to a new log: the memtable then holds just the write that switched it.
    const first = currentLog();
    for (let i = 0; currentLog() === first; i++) {
      assert.ok(i < 10, 'LevelDB switched memtables within 10 big writes');
      await save(big());
    }
    const log = currentLog();
    // The switched-out memtable's flush must be over (its log deleted) before the disk is
    // filled: a flush still writing its table would take the room kept for the small write.
    await waitFor(() => !readdirSync(storeDir).includes(first!), 10_000, 'the first memtable flushed');
    // Four more: the memtable holds ~4.5 MB, past the 4 MiB write buffer, so the next write switches it.
    for (let i = 0; i < 4; i++) await save(big());
    assert.equal(currentLog(), log, 'no switch yet');
    // Room for a small write, not for the ~4.5 MB table that flushing the memtable writes.
    const reserve = join(fs.dir, 'reserve');
    writeFileSync(reserve, Buffer.alloc(1536 * 1024));
    const free = fillDisk(fs.dir, 'filler-compaction');
    rmSync(reserve);
    await save({ small: true });
    assert.notEqual(currentLog(), log, 'the small write switched the memtable and started a flush');
    // The flush fails in the background; LevelDB then fails every write, even once space is back.
    let n = 200_000;
    let refused: { code: number; message: string } | undefined;
    await waitFor(async () => {
      const r = await c.call('memory.add', { agentId: 'compact', content: content(n) });
      if (r.error === undefined) acked.set((r.result as { factId: string }).factId, { agentId: 'compact', n });
      n++;
      refused = r.error;
      return refused !== undefined;
    }, 30_000, 'a write refused after the flush failed');
    assert.equal(refused!.code, STORAGE_ERROR);
    assert.match(refused!.message, /No space left on device/);
    assert.match(await health(c), /^read-only: .*No space left on device/);
    assert.deepEqual((await c.ok(CheckpointList, { agentId: 'compact', limit: 100 })).checkpoints.map((x) => x.id), checkpoints, 'reads go on');

    free();
    await waitFor(async () => (await health(c)) === 'ok', RECOVERY_MS, 'health ok after space is back');
    for (let i = 0; i < 20; i++, n++) acked.set((await c.ok(MemoryAdd, { agentId: 'compact', content: content(n) })).factId, { agentId: 'compact', n });
    await save({ after: true });
    c.socket.destroy();
    d = await assertAllAfterRestart(d, acked);
    const again = await connect(d.socket);
    assert.deepEqual((await again.ok(CheckpointList, { agentId: 'compact', limit: 100 })).checkpoints.map((x) => x.id), checkpoints);
    again.socket.destroy();
    await d.stop();
  });
});
