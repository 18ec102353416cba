// docs/protocol.md "Errors": a record that fails to decode is -32010 for the
// request that read it, with the cause in the message; it is never skipped
// silently, and resume never falls back to an older checkpoint. The record
// is corrupted on disk between two daemon runs, through LevelDB itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import { CheckpointSave, MemoryAdd } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, startDaemon } from '@memoryd/test-support';
import { assertError, assertServing, connect } from './helpers/rpc.js';

after(cleanupAll);

/**
 * Overwrites every entry whose key holds `id` and whose value holds
 * `marker` with bytes that are not any encoding of a record. Returns how
 * many entries were hit.
 */
async function corrupt(dataDir: string, id: string, marker: string): Promise<number> {
  const db = new ClassicLevel<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  let hits = 0;
  try {
    const targets: string[] = [];
    for await (const [key, value] of db.iterator()) {
      if (key.includes(id) && value.includes(marker)) targets.push(key);
    }
    for (const key of targets) {
      await db.put(key, '\u0000{garbage: not a record\u00ff');
      hits++;
    }
  } finally {
    await db.close();
  }
  return hits;
}

describe('a corrupted checkpoint record', () => {
  it('is -32010 by id and as latest, never the older checkpoint', async () => {
    let d: DaemonHandle = await startDaemon();
    const { socket, dataDir } = d;
    let c = await connect(socket);
    const older = await c.ok(CheckpointSave, { agentId: 'corrupt', state: { marker: 'older-valid' }, messageCount: 1 });
    const newer = await c.ok(CheckpointSave, { agentId: 'corrupt', state: { marker: 'newer-corrupted' }, messageCount: 2 });
    await c.ok(CheckpointSave, { agentId: 'bystander', state: { marker: 'fine' } });
    await c.ok(MemoryAdd, { agentId: 'corrupt', content: 'facts are unaffected' });
    c.socket.destroy();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });

    const hits = await corrupt(dataDir, newer.checkpointId, 'newer-corrupted');
    assert.ok(hits >= 1, 'found the stored checkpoint by its id');

    d = await startDaemon({ socket, dataDir });
    c = await connect(socket);
    const watcher = await connect(socket);

    const byId = assertError(await c.call('checkpoint.resume', { agentId: 'corrupt', checkpointId: newer.checkpointId }), -32010);
    assert.ok(byId.message.length > 0, 'the message carries the cause');
    const byIdOptIn = await c.call('checkpoint.resume', { agentId: 'corrupt', checkpointId: newer.checkpointId, reportNotFound: true });
    assertError(byIdOptIn, -32010);

    const latest = await c.call('checkpoint.resume', { agentId: 'corrupt' });
    assertError(latest, -32010);
    assert.equal(JSON.stringify(latest).includes('older-valid'), false, 'no fallback to the older checkpoint');
    const latestOptIn = await c.call('checkpoint.resume', { agentId: 'corrupt', reportNotFound: true });
    assertError(latestOptIn, -32010);

    // The older checkpoint, other agents and facts are still served.
    const o = await c.call('checkpoint.resume', { agentId: 'corrupt', checkpointId: older.checkpointId });
    assert.deepEqual((o.result as { checkpoint: { state: unknown } }).checkpoint.state, { marker: 'older-valid' });
    const b = await c.call('checkpoint.resume', { agentId: 'bystander' });
    assert.deepEqual((b.result as { checkpoint: { state: unknown } }).checkpoint.state, { marker: 'fine' });
    const l = await c.call('memory.list', { agentId: 'corrupt' });
    assert.equal((l.result as { facts: unknown[] }).facts.length, 1);
    await assertServing(watcher);
    await assertServing(c);

    // An export that reaches the broken record fails instead of skipping it.
    assertError(await c.call('admin.export', { agentId: 'corrupt', limit: 1000 }), -32010);
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
  });

  it('a corrupted fact is -32010 for list and export, not skipped', async () => {
    let d = await startDaemon();
    const { socket, dataDir } = d;
    let c = await connect(socket);
    await c.ok(MemoryAdd, { agentId: 'corrupt-f', content: 'first intact fact' });
    const bad = await c.ok(MemoryAdd, { agentId: 'corrupt-f', content: 'second fact zanzibar-marker' });
    c.socket.destroy();
    await d.stop();
    assert.ok((await corrupt(dataDir, bad.factId, 'zanzibar-marker')) >= 1);

    d = await startDaemon({ socket, dataDir });
    c = await connect(socket);
    assertError(await c.call('memory.list', { agentId: 'corrupt-f' }), -32010);
    assertError(await c.call('admin.export', { agentId: 'corrupt-f' }), -32010);
    await assertServing(c);
    await d.stop();
  });
});
