// Every agent's index comes back after a restart: from its image when the
// image stands for the store's facts, by a rebuild (in a worker thread)
// when it is missing, damaged or older than the store. Either way every
// query is answered exactly as before the restart, and writes that race a
// rebuild are in the answers after it.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type MemoryStore, createLogger } from '@memoryd/daemon';
import { prng as random } from '@memoryd/test-support';
import { monotonicFactory } from 'ulid';
import { openTempStore, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

const AGENT = 'imaged';
const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${(i * 7919) % 1000}${'abcdefgh'[i % 8]}${i % 3 === 0 ? 'ing' : ''}`);

function text(rand: () => number): string {
  return Array.from({ length: 3 + Math.floor(rand() * 10) }, () => VOCABULARY[Math.floor(VOCABULARY.length * rand() ** 1.5)]!).join(' ');
}

function queries(rand: () => number, count: number): string[] {
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCABULARY[Math.floor(rand() * VOCABULARY.length)]!);
    if (rand() < 0.3) words[words.length - 1] = `${words[words.length - 1]!.slice(0, 2 + Math.floor(rand() * 2))}*`;
    return words.join(' ');
  });
}

async function answers(store: MemoryStore, qs: readonly string[], agentId = AGENT) {
  const out = [];
  for (const query of qs) out.push((await store.searchFacts({ agentId, query, limit: 10 })).facts);
  return out;
}

/** A store with 4,000 imported facts of one agent, a few of another, then updates and deletes. */
async function seeded(seed: number) {
  const rand = random(seed);
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
  for (let i = 0; i < 20; i++) await store.addFact({ agentId: 'other', content: `${text(rand)} other${i}` });
  const ids = records.map((r) => r.id);
  for (let i = 0; i < 100; i++) {
    const victim = ids.splice(Math.floor(rand() * ids.length), 1)[0]!;
    if (i % 2 === 0) await store.reflect({ agentId: AGENT, action: 'delete', factId: victim });
    else await store.reflect({ agentId: AGENT, action: 'update', factId: victim, content: `${text(rand)} updated${i}` });
  }
  return { store, dataDir, rand, ids };
}

const imageDir = (dataDir: string) => join(dataDir, 'search');

describe('search indexes across restarts', () => {
  test('a clean restart reads the images: every answer is the same, at once', async () => {
    const { store, dataDir, rand } = await seeded(43);
    const qs = [...queries(rand, 200), 'updated7', 'updated'];
    const before = await answers(store, qs);
    assert.ok(before.filter((facts) => facts.length > 0).length > 150);
    const again = await reopen(store, dataDir);
    // Indexes wait in their images until used: a start reads none.
    assert.equal(again.searchMemory().agents, 0);
    assert.equal(readdirSync(imageDir(dataDir)).length, 2);
    assert.deepEqual(await answers(again, qs), before);
    assert.equal(again.searchMemory().agents, 1, 'the searched agent was read from its image');
    assert.equal((await again.searchFacts({ agentId: 'other', query: 'other3' })).facts.length, 1);
  });

  test('writes to an agent still in its image wait for it, and are in its answers and its next image', async () => {
    const { store, dataDir, rand } = await seeded(59);
    const qs = queries(rand, 100);
    let current = await reopen(store, dataDir);
    const added = [];
    for (let i = 0; i < 30; i++) added.push((await current.addFact({ agentId: AGENT, content: `${text(rand)} cold${i}` })).factId);
    assert.equal(current.searchMemory().agents, 0, 'the writes did not read the image');
    for (let i = 0; i < 30; i += 7) {
      assert.deepEqual((await current.searchFacts({ agentId: AGENT, query: `cold${i}` })).facts.map((f) => f.id), [added[i]]);
    }
    // Written to since the open, never searched: its image is brought up to date at close.
    current = await reopen(current, dataDir);
    await current.addFact({ agentId: AGENT, content: 'one more after the reopen' });
    current = await reopen(current, dataDir);
    const got = await answers(current, qs);
    assert.ok(got.some((facts) => facts.length > 0));
    assert.equal((await current.searchFacts({ agentId: AGENT, query: 'reopen' })).facts.length, 1);
    // The same store with its index rebuilt from the facts answers alike.
    await current.close();
    rmSync(imageDir(dataDir), { recursive: true });
    assert.deepEqual(await answers(await reopen(current, dataDir), qs), got);
  });

  test('a missing, damaged or out-of-date image is rebuilt, and the answers are the same', async () => {
    const { store, dataDir, rand } = await seeded(47);
    const qs = queries(rand, 150);
    let current = await reopen(store, dataDir);
    const want = await answers(current, qs);
    const [name] = readdirSync(imageDir(dataDir)).filter((n) => readFileSync(join(imageDir(dataDir), n)).includes(AGENT));
    const image = join(imageDir(dataDir), name!);
    const saved = join(dataDir, 'saved.index');
    copyFileSync(image, saved);

    // Missing.
    await current.close();
    rmSync(image);
    current = await reopen(current, dataDir);
    assert.deepEqual(await answers(current, qs), want, 'rebuilt from the facts');

    // Damaged: one flipped byte.
    await current.close();
    const bytes = readFileSync(image);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(image, bytes);
    current = await reopen(current, dataDir);
    assert.deepEqual(await answers(current, qs), want, 'a damaged image is rebuilt');

    // Out of date: the image from before a later write.
    const added = await current.addFact({ agentId: AGENT, content: 'zzyzx arrived after the saved image' });
    await current.close();
    copyFileSync(saved, image);
    current = await reopen(current, dataDir);
    assert.deepEqual((await current.searchFacts({ agentId: AGENT, query: 'zzyzx' })).facts.map((f) => f.id), [added.factId]);
    await current.reflect({ agentId: AGENT, action: 'delete', factId: added.factId });
    assert.deepEqual(await answers(current, qs), want);
    assert.ok(!existsSync(`${image}.tmp`));
  });

  test('the newest image, read ahead while the store opens, answers alike; damaged, it is rebuilt', async () => {
    const { store, dataDir, rand } = await seeded(61);
    const qs = queries(rand, 120);
    let current = await reopen(store, dataDir);
    const want = await answers(current, qs);
    const wantOther = (await current.searchFacts({ agentId: 'other', query: 'other5' })).facts;
    await current.close();
    const names = readdirSync(imageDir(dataDir));
    const image = join(imageDir(dataDir), names.find((n) => readFileSync(join(imageDir(dataDir), n)).includes(AGENT))!);
    const otherImage = join(imageDir(dataDir), names.find((n) => !readFileSync(join(imageDir(dataDir), n)).includes(AGENT))!);
    // The agent's image is the newest: it is the one read ahead.
    const newest = (path: string) => {
      utimesSync(otherImage, new Date(1e12), new Date(1e12));
      utimesSync(image, new Date(1e12), new Date(1e12));
      utimesSync(path, new Date(2e12), new Date(2e12));
    };
    newest(image);
    // Read ahead with its checksum taken as it came in: used as it is, not rebuilt.
    const log: string[] = [];
    current = await reopen(current, dataDir, { logger: createLogger('debug', (line) => log.push(line)) });
    assert.deepEqual(await answers(current, qs), want);
    assert.deepEqual((await current.searchFacts({ agentId: 'other', query: 'other5' })).facts, wantOther);
    const read = log.map((line) => JSON.parse(line) as { msg: string; agentId?: string });
    assert.ok(read.some((e) => e.msg === 'search index read from its image' && e.agentId === AGENT), 'the image read ahead is used');
    assert.deepEqual(read.filter((e) => /rebuild/.test(e.msg)), [], 'nothing is rebuilt');
    // The other agent's is newest: the first search of this one reads its own.
    await current.close();
    newest(otherImage);
    current = await reopen(current, dataDir);
    assert.deepEqual(await answers(current, qs), want);
    assert.deepEqual((await current.searchFacts({ agentId: 'other', query: 'other5' })).facts, wantOther);
    // Damaged and read ahead: the checksum still catches it.
    await current.close();
    const bytes = readFileSync(image);
    bytes[Math.floor(bytes.length / 3)]! ^= 0x10;
    writeFileSync(image, bytes);
    newest(image);
    log.length = 0;
    current = await reopen(current, dataDir, { logger: createLogger('debug', (line) => log.push(line)) });
    assert.deepEqual(await answers(current, qs), want, 'a damaged image read ahead is rebuilt');
    assert.ok(log.some((line) => line.includes('search index image damaged; rebuilding the index') && line.includes('checksum mismatch')), 'the checksum caught it');
  });

  test('a stop out of time for images leaves them to a rebuild, and every answer is the same', async () => {
    const { store, dataDir, rand } = await seeded(71);
    const qs = queries(rand, 120);
    // Written since the last stop, with no time to write an image at this one.
    let current = await reopen(store, dataDir, { stopImagesMs: 0 });
    const added = await current.addFact({ agentId: AGENT, content: 'qqzyx written just before a hurried stop' });
    const want = await answers(current, qs);
    current = await reopen(current, dataDir);
    assert.equal(current.searchMemory().agents, 0);
    assert.deepEqual(await answers(current, qs), want, 'rebuilt from the facts');
    assert.deepEqual((await current.searchFacts({ agentId: AGENT, query: 'qqzyx' })).facts.map((f) => f.id), [added.factId]);
  });

  test('writes racing a rebuild are in its answers', async () => {
    const { store, dataDir, rand, ids } = await seeded(53);
    await store.close();
    rmSync(imageDir(dataDir), { recursive: true });
    const racing = await reopen(store, dataDir);
    // The rebuild runs in the background; writes and searches land meanwhile.
    const writes: Array<Promise<unknown>> = [racing.searchFacts({ agentId: AGENT, query: 'w0a', limit: 5 })];
    const fresh: string[] = [];
    for (let i = 0; i < 60; i++) {
      writes.push(racing.addFact({ agentId: AGENT, content: `${text(rand)} fresh${i}` }).then((r) => fresh.push(r.factId)));
      const victim = ids.splice(Math.floor(rand() * ids.length), 1)[0]!;
      writes.push(racing.reflect({ agentId: AGENT, action: 'delete', factId: victim }));
    }
    await Promise.all(writes);
    assert.equal(fresh.length, 60);
    for (let i = 0; i < 60; i += 7) assert.equal((await racing.searchFacts({ agentId: AGENT, query: `fresh${i}` })).facts.length, 1, `fresh${i}`);
    const qs = queries(rand, 150);
    const raced = await answers(racing, qs);
    // The same store, its index rebuilt with nothing racing it.
    await racing.close();
    rmSync(imageDir(dataDir), { recursive: true });
    assert.deepEqual(await answers(await reopen(racing, dataDir), qs), raced);
  });
});
