// Layout 3 seals every stored value with a checksum (docs/architecture.md,
// "Storage"). A store of layout 1 (the same records, unsealed) is sealed in
// place at open: every record reads back as it was, search answers, and
// `memoryd --verify` finds nothing damaged.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { Level } from 'level';
import { CheckpointSave, MemoryAdd, MemorySearch } from '@memoryd/protocol';
import { cleanupAll, spawnDaemon, startDaemon } from '@memoryd/test-support';
import { listedCheckpoints, listedFacts } from './helpers/read-all.js';
import { connect } from './helpers/rpc.js';
import { sealValue, unsealValue } from './helpers/seal.js';
import { runMemoryd } from './helpers/store-files.js';

after(cleanupAll);

/** Rewrites a stopped daemon's store as layout 1: the same records without their seals. */
async function unseal(dataDir: string, layout: string | undefined): Promise<void> {
  const db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const entries = await db.iterator().all();
  await db.batch(entries.map(([key, value]) => ({ type: 'put' as const, key, value: key === '!meta!layout' ? '1' : unsealValue(key, value) })));
  if (layout === undefined) await db.del('!meta!layout');
  await db.close();
}

it('a layout-1 store is sealed at open and reads back whole', async () => {
  let d = await startDaemon();
  let c = await connect(d.socket);
  const facts = new Map<string, string>();
  for (let i = 0; i < 40; i++) {
    const content = `layout fact ${i} about the ferry timetable`;
    facts.set((await c.ok(MemoryAdd, { agentId: 'old', content })).factId, content);
  }
  const checkpoint = (await c.ok(CheckpointSave, { agentId: 'old', state: { n: 1 } })).checkpointId;
  c.socket.destroy();
  await d.stop();

  await unseal(d.dataDir, '1');

  d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
  assert.match(d.stderr(), /sealing the store/);
  c = await connect(d.socket);
  assert.deepEqual(await listedFacts(c, 'old'), facts);
  assert.deepEqual(await listedCheckpoints(c, 'old'), [checkpoint]);
  const found = await c.ok(MemorySearch, { agentId: 'old', query: 'ferry timetable 7' });
  assert.ok(found.facts.length > 0);
  c.socket.destroy();
  await d.stop();
  const verify = await runMemoryd(d.dataDir, '--verify');
  assert.equal(verify.exit()?.code, 0, verify.stdout());
});

it('a store that lost its layout record is refused, and --repair keeps its records as the layout they are in', async () => {
  let d = await startDaemon();
  let c = await connect(d.socket);
  const facts = new Map<string, string>();
  for (let i = 0; i < 10; i++) facts.set((await c.ok(MemoryAdd, { agentId: 'lost', content: `fact ${i} of a store without a layout` })).factId, `fact ${i} of a store without a layout`);
  c.socket.destroy();
  await d.stop();
  await unseal(d.dataDir, undefined);

  const refused = await spawnDaemon({ socket: d.socket, dataDir: d.dataDir, wait: 'exit', timeoutMs: 10_000 });
  assert.equal(refused.exit()?.code, 1);
  assert.match(refused.lastStderrLine(), /no layout record/);
  const repair = await runMemoryd(d.dataDir, '--repair');
  assert.equal(repair.exit()?.code, 0, repair.stderr());
  assert.doesNotMatch(repair.stdout(), /removed:/, 'no record taken for damaged');
  d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
  c = await connect(d.socket);
  assert.deepEqual(await listedFacts(c, 'lost'), facts);
  c.socket.destroy();
  await d.stop();
});

it('a layout-2 store (a dedup entry per text, listing its facts) gets a key per claim at open', async () => {
  let d = await startDaemon();
  let c = await connect(d.socket);
  const first = await c.ok(MemoryAdd, { agentId: 'two', content: 'the ferry leaves at nine' });
  await c.ok(MemoryAdd, { agentId: 'two', content: 'the ferry returns at six' });
  c.socket.destroy();
  await d.stop();

  // Layout 2 as an earlier release wrote it: one sealed value per text, the ids as a JSON list.
  const db = new Level<string, string>(join(d.dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const claims = await db.iterator({ gte: '!dedup!', lt: '!dedup"' }).all();
  assert.equal(claims.length, 2, 'one claim key per fact');
  const batch = db.batch();
  for (const [key] of claims) {
    const [agentId, hash, factId] = key.slice('!dedup!'.length).split('\x00');
    const entry = `!dedup!${agentId}\x00${hash}`;
    batch.del(key).put(entry, sealValue(entry, JSON.stringify([factId])));
  }
  batch.put('!meta!layout', sealValue('!meta!layout', '2'));
  await batch.write();
  await db.close();

  d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
  assert.match(d.stderr(), /rewriting the dedup entries/);
  c = await connect(d.socket);
  const again = await c.ok(MemoryAdd, { agentId: 'two', content: '  The ferry leaves at NINE ' });
  assert.deepEqual(again, { factId: first.factId, createdAt: first.createdAt, duplicate: true });
  c.socket.destroy();
  await d.stop();
  const verify = await runMemoryd(d.dataDir, '--verify');
  assert.equal(verify.exit()?.code, 0, verify.stdout());
});
