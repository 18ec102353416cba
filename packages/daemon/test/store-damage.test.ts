// Issue 12: open never destroys, and no damaged record is served. Each
// test damages a stopped daemon's LevelDB files as a disk or a bad copy
// would (a removed CURRENT, a truncated table, a flipped byte in a stored
// value, a damaged key, a damaged log), then checks that the daemon
// refuses what it cannot open as it is (one line naming the cause and
// `memoryd --repair`) without deleting a file, that what it opens is
// never served damaged and no range read comes back short without an
// error, and that --verify finds it and --repair brings back all that
// the damage left.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, truncateSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CheckpointSave, DaemonStatus, MemoryAdd, MemoryList, MemorySearch } from '@memoryd/protocol';
import { Level } from 'level';
import { cleanupAll, type DaemonHandle, prng, startDaemon } from '@memoryd/test-support';
import { exportedRecords, listedCheckpoints, listedFacts } from './helpers/read-all.js';
import { type RpcClient, connect } from './helpers/rpc.js';
import { assertNothingDeleted, filesEnding, findInFiles, recordStartingAfter, refusedStart, runMemoryd, setByte, storeFiles } from './helpers/store-files.js';

after(cleanupAll);

const STORAGE_ERROR = -32010;

/** What a test wrote and had acknowledged. */
interface Written {
  facts: Map<string, { agentId: string; content: string }>;
  checkpoints: Map<string, string>;
}

/** Adds `count` facts (and a checkpoint every 10) for each agent. */
async function write(c: RpcClient, agents: string[], count: number, written: Written, tag = ''): Promise<void> {
  for (const agentId of agents) {
    for (let i = 0; i < count; i++) {
      const content = `${agentId} fact ${tag}${i}: the deploy window for service ${tag}${i} is thursday`;
      written.facts.set((await c.ok(MemoryAdd, { agentId, content })).factId, { agentId, content });
      if (i % 10 === 0) written.checkpoints.set((await c.ok(CheckpointSave, { agentId, state: { step: i, tag } })).checkpointId, agentId);
    }
  }
}

/** Stops and starts the daemon once: LevelDB turns its log into a table at the start. */
async function cycle(d: DaemonHandle): Promise<DaemonHandle> {
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
  return startDaemon({ socket: d.socket, dataDir: d.dataDir });
}

/** Fails unless every acknowledged fact and checkpoint is listed, found and exported, with health ok. */
async function assertAllThere(socket: string, written: Written): Promise<void> {
  const c = await connect(socket);
  const agents = new Set([...written.facts.values()].map((f) => f.agentId));
  for (const agentId of agents) {
    const listed = await listedFacts(c, agentId);
    for (const [id, f] of written.facts) if (f.agentId === agentId) assert.equal(listed.get(id), f.content, `fact ${id} of ${agentId}`);
    const checkpoints = new Set(await listedCheckpoints(c, agentId));
    for (const [id, owner] of written.checkpoints) if (owner === agentId) assert.ok(checkpoints.has(id), `checkpoint ${id} of ${agentId}`);
  }
  const [someId, some] = [...written.facts][0]!;
  const found = await c.ok(MemorySearch, { agentId: some.agentId, query: some.content, limit: 3 });
  assert.equal(found.facts[0]?.id, someId);
  const exported = await exportedRecords(c);
  assert.ok(exported.length >= written.facts.size + written.checkpoints.size);
  assert.equal((await c.ok(DaemonStatus, {})).health, 'ok');
  c.socket.destroy();
}

describe('a damaged store', () => {
  it('missing CURRENT: refused with the way out, nothing deleted; --repair brings every record back', async () => {
    const written: Written = { facts: new Map(), checkpoints: new Map() };
    let d = await startDaemon();
    let c = await connect(d.socket);
    await write(c, ['ann', 'bob'], 60, written);
    d = await cycle(d); // the first writes now live in a table, the next in the log
    c = await connect(d.socket);
    await write(c, ['ann', 'cy'], 30, written, 'b');
    c.socket.destroy();
    await d.stop();

    rmSync(join(d.dataDir, 'store', 'CURRENT'));
    const before = storeFiles(d.dataDir);
    const line = await refusedStart(d.socket, d.dataDir);
    assert.match(line, /^memoryd: cannot start: cannot open the store in .*: CURRENT is missing.*memoryd --repair/);
    assertNothingDeleted(before, storeFiles(d.dataDir), 'a refused start');

    const verify = await runMemoryd(d.dataDir, '--verify');
    assert.equal(verify.exit()?.code, 1);
    assert.match(verify.stdout(), /damaged: CURRENT is missing/);
    const repair = await runMemoryd(d.dataDir, '--repair');
    assert.equal(repair.exit()?.code, 0, repair.stderr());
    const backup = /copied to (\S+)/.exec(repair.stdout())?.[1];
    assert.ok(backup !== undefined, repair.stdout());
    assert.ok([...before.keys()].every((name) => name === 'LOCK' || readFileSync(join(backup, name)).length === before.get(name)), 'the copy holds the store as it was');
    assert.equal((await runMemoryd(d.dataDir, '--verify')).exit()?.code, 0);

    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    await assertAllThere(d.socket, written);
    await d.stop();
  });

  it('a truncated table: refused naming it; --repair keeps what is readable and says what went; reads are whole after', async () => {
    const written: Written = { facts: new Map(), checkpoints: new Map() };
    let d = await startDaemon();
    const c = await connect(d.socket);
    await write(c, ['ann', 'bob'], 80, written);
    c.socket.destroy();
    d = await cycle(d);
    // Written after the table: in the log, out of the damage's reach.
    const later: Written = { facts: new Map(), checkpoints: new Map() };
    const c2 = await connect(d.socket);
    await write(c2, ['cy'], 20, later);
    c2.socket.destroy();
    await d.stop();

    const [table] = filesEnding(d.dataDir, '.ldb');
    assert.ok(table !== undefined, 'the store has a table');
    truncateSync(table, Math.floor(readFileSync(table).length / 2));
    const before = storeFiles(d.dataDir);
    assert.match(await refusedStart(d.socket, d.dataDir), /cannot start: .*\.ldb: \d+ bytes, but MANIFEST-\d+ records \d+ \(truncated\).*memoryd --repair/);
    assertNothingDeleted(before, storeFiles(d.dataDir), 'a refused start');
    assert.equal((await runMemoryd(d.dataDir, '--verify')).exit()?.code, 1);

    const repair = await runMemoryd(d.dataDir, '--repair');
    assert.equal(repair.exit()?.code, 0, repair.stderr());
    assert.match(repair.stdout(), /LevelDB's repair ran/);
    assert.equal((await runMemoryd(d.dataDir, '--verify')).exit()?.code, 0);
    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    const r = await connect(d.socket);
    // Whatever the repair kept, every read of it is whole: counters, lists, export and search agree.
    const status = await r.ok(DaemonStatus, {});
    const kept = new Map([...(await listedFacts(r, 'ann')), ...(await listedFacts(r, 'bob')), ...(await listedFacts(r, 'cy'))]);
    assert.equal(kept.size, status.facts);
    for (const [id, content] of kept) assert.equal((written.facts.get(id) ?? later.facts.get(id))?.content, content, 'a kept fact is as written');
    const exported = await exportedRecords(r);
    assert.equal(exported.filter((x) => x.type === 'fact').length, status.facts);
    assert.match(repair.stdout(), new RegExp(`damaged table ${basename(table)}`), 'the repair names the table it could not read whole');
    r.socket.destroy();
    await assertAllThere(d.socket, later);
    await d.stop();
  });

  it('a table LevelDB opens but cannot read: the start stops; --repair runs LevelDB\'s repair and leaves a whole store', async () => {
    const written: Written = { facts: new Map(), checkpoints: new Map() };
    let d = await startDaemon();
    let c = await connect(d.socket);
    await write(c, ['ann'], 40, written);
    c.socket.destroy();
    d = await cycle(d);
    const later: Written = { facts: new Map(), checkpoints: new Map() };
    c = await connect(d.socket);
    await write(c, ['bob'], 10, later);
    c.socket.destroy();
    await d.stop();
    // The footer's magic number: its size unchanged, the table passes the start-up checks, and
    // LevelDB fails each read of it ("not an sstable").
    const [table] = filesEnding(d.dataDir, '.ldb');
    const size = readFileSync(table!).length;
    setByte(table!, size - 1, readFileSync(table!)[size - 1]! ^ 0xff);

    // The counters and the layout are in that table too: the start reads them, and stops. (LevelDB's
    // open, which the files' checks let through, has turned the log into a table by then: bob's
    // writes moved, none lost, as the end of this test shows.)
    assert.match(await refusedStart(d.socket, d.dataDir), /cannot start: cannot open the store in .*: Corruption: .*memoryd --repair/);

    assert.equal((await runMemoryd(d.dataDir, '--verify')).exit()?.code, 1);
    const repair = await runMemoryd(d.dataDir, '--repair');
    assert.equal(repair.exit()?.code, 0, repair.stderr());
    assert.match(repair.stdout(), /LevelDB's repair ran: .*Corruption/);
    const verify = await runMemoryd(d.dataDir, '--verify');
    assert.equal(verify.exit()?.code, 0, verify.stdout());
    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    await assertAllThere(d.socket, later);
    c = await connect(d.socket);
    const status = await c.ok(DaemonStatus, {});
    assert.equal((await exportedRecords(c)).filter((x) => x.type === 'fact' && x.supersededBy === undefined && x.deletedAt === undefined).length, status.facts);
    c.socket.destroy();
    await d.stop();
  });

  it('a flipped byte in a stored value is never served: -32010 naming the fact, other records served; --repair removes it', async () => {
    const written: Written = { facts: new Map(), checkpoints: new Map() };
    let d = await startDaemon();
    let c = await connect(d.socket);
    await write(c, ['bystander'], 20, written);
    // `vaul` sorts just before `vault`: its reads touch the damaged fact's key, past their range.
    const neighbour = [];
    for (let i = 0; i < 3; i++) neighbour.push((await c.ok(MemoryAdd, { agentId: 'vaul', content: `neighbour fact ${i}` })).factId);
    const secret = await c.ok(MemoryAdd, { agentId: 'vault', content: 'the launch code is 1234' });
    await write(c, ['vault'], 20, written);
    c.socket.destroy();
    d = await cycle(d);
    await d.stop();

    // Only the value holds these words side by side (the index holds each alone); snappy keeps them as they are.
    const hits = findInFiles(d.dataDir, '.ldb', 'launch code');
    assert.equal(hits.length, 1, 'the value is in one table, as written');
    const [file, at] = hits[0]!;
    setByte(file, at, 'p'.charCodeAt(0));

    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    c = await connect(d.socket);
    const seen: string[] = [];
    const read = async (method: string, params: object) => {
      const r = await c.call(method, params);
      seen.push(JSON.stringify(r));
      return r;
    };
    for (const [method, params] of [
      ['memory.list', { agentId: 'vault' }],
      ['memory.list', { agentId: 'vault', limit: 100 }],
      ['admin.export', { agentId: 'vault' }],
      ['admin.export', {}],
    ] as const) {
      const r = await read(method, params);
      assert.equal(r.error?.code, STORAGE_ERROR, `${method} fails`);
      assert.match(r.error!.message, new RegExp(`fact ${secret.factId} of agent vault is damaged`));
    }
    const search = await read('memory.search', { agentId: 'vault', query: 'launch code' });
    assert.equal(search.error?.code, STORAGE_ERROR, 'search does not serve it either');
    assert.ok(seen.every((s) => !s.includes('paunch')), 'the changed content is never served');
    assert.equal((await listedFacts(c, 'bystander')).size, 20);
    assert.deepEqual([...(await listedFacts(c, 'vaul')).keys()], neighbour, 'the next agent\'s damage is not this agent\'s error');
    assert.equal((await c.ok(MemoryList, { agentId: 'vaul', limit: 1, after: neighbour[1]! })).facts.length, 1);
    c.socket.destroy();
    await d.stop();

    const verify = await runMemoryd(d.dataDir, '--verify');
    assert.equal(verify.exit()?.code, 1);
    assert.match(verify.stdout(), new RegExp(`damaged: fact ${secret.factId} of agent vault: damaged \\(checksum mismatch\\)`));
    const repair = await runMemoryd(d.dataDir, '--repair');
    assert.equal(repair.exit()?.code, 0, repair.stderr());
    assert.match(repair.stdout(), new RegExp(`removed: fact ${secret.factId} of agent vault \\(checksum mismatch\\)`));
    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    await assertAllThere(d.socket, written);
    await d.stop();
  });

  it('a damaged log: refused naming it, nothing deleted; --repair loses only the writes that were hit', async () => {
    const written: Written = { facts: new Map(), checkpoints: new Map() };
    let d = await startDaemon();
    const c = await connect(d.socket);
    await write(c, ['ann', 'bob'], 300, written);
    c.socket.destroy();
    await d.stop(); // the writes stay in LevelDB's log: a stop does not flush it
    const [log] = filesEnding(d.dataDir, '.log');
    assert.ok(log !== undefined && readFileSync(log).length > 4 * 32_768, 'the writes span several 32 KiB log blocks');
    // Two records hit: one's payload in the second block, another's length in the third. LevelDB
    // drops each with the rest of its block, some 10 writes each; RepairDB would keep the first as it is.
    const [second, third] = [recordStartingAfter(log, 32_768 + 2_000), recordStartingAfter(log, 2 * 32_768 + 2_000)];
    setByte(log, second + 20, readFileSync(log)[second + 20]! ^ 0x08);
    setByte(log, third + 5, readFileSync(log)[third + 5]! ^ 0x40);

    const before = storeFiles(d.dataDir);
    assert.match(await refusedStart(d.socket, d.dataDir), /cannot start: .*\.log: checksum mismatch at byte \d+, with valid records after it.*memoryd --repair/);
    assertNothingDeleted(before, storeFiles(d.dataDir), 'a refused start');
    assert.equal((await runMemoryd(d.dataDir, '--verify')).exit()?.code, 1);
    const repair = await runMemoryd(d.dataDir, '--repair');
    assert.equal(repair.exit()?.code, 0, repair.stderr());
    assert.match(repair.stdout(), /written back: \d+ write batches/);

    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    const r = await connect(d.socket);
    let missing = 0;
    for (const agentId of ['ann', 'bob']) {
      const facts = await listedFacts(r, agentId);
      const checkpoints = new Set(await listedCheckpoints(r, agentId));
      for (const [id, f] of written.facts) if (f.agentId === agentId && facts.get(id) !== f.content) missing++;
      for (const [id, owner] of written.checkpoints) if (owner === agentId && !checkpoints.has(id)) missing++;
    }
    assert.equal(missing, 2, 'only the two writes whose bytes were hit are gone');
    const status = await r.ok(DaemonStatus, {});
    assert.equal(status.facts + status.checkpoints, written.facts.size + written.checkpoints.size - 2, 'the counters agree');
    r.socket.destroy();
    await d.stop();
  });

  it('a record gone behind the counters\' back: whole reads, export and search fail instead of coming back short', async () => {
    let d = await startDaemon();
    let c = await connect(d.socket);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await c.ok(MemoryAdd, { agentId: 'gone', content: `gone fact ${i} about the harbour crane` })).factId);
    for (let i = 0; i < 5; i++) await c.ok(CheckpointSave, { agentId: 'gone', state: { i } });
    await c.ok(MemoryAdd, { agentId: 'other', content: 'the other agent is whole' });
    c.socket.destroy();
    await d.stop();
    // As LevelDB does when a damaged key makes a record invisible: the record is simply not there.
    const db = new Level<string, string>(join(d.dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await db.open();
    await db.del(`!fact!gone\x00${ids[5]}`);
    const checkpoint = (await db.keys({ gt: '!ckpt!gone\x00', lt: '!ckpt!gone\x01' }).all())[2]!;
    await db.del(checkpoint);
    await db.close();

    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    c = await connect(d.socket);
    for (const [method, params] of [
      ['memory.list', { agentId: 'gone', limit: 100 }],
      ['checkpoint.list', { agentId: 'gone' }],
      ['admin.export', { agentId: 'gone' }],
      ['admin.export', { limit: 1000 }],
      ['memory.search', { agentId: 'gone', query: 'harbour crane' }],
    ] as const) {
      const r = await c.call(method, params);
      assert.equal(r.error?.code, STORAGE_ERROR, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r).slice(0, 300)}`);
      // The search index came back from its image: it still holds the fact the store lost.
      if (method === 'memory.search') assert.match(r.error!.message, new RegExp(`fact ${ids[5]} of agent gone is in its search index but not in the store`));
      else assert.match(r.error!.message, /of agent gone: \d+ read, but its counters say \d+/);
    }
    assert.equal((await c.ok(MemoryList, { agentId: 'other' })).facts.length, 1);
    c.socket.destroy();
    await d.stop();
    const verify = await runMemoryd(d.dataDir, '--verify');
    assert.equal(verify.exit()?.code, 1);
    assert.match(verify.stdout(), /agent gone: 11 current facts found, its counters say 12/);
    assert.match(verify.stdout(), /agent gone: 4 checkpoints found, its counters say 5/);
  });

  it('a damaged key never cuts a range read short: the read fails instead, page by page too', async () => {
    let d = await startDaemon();
    let c = await connect(d.socket);
    const random = prng(7);
    // Content snappy cannot shrink, so LevelDB stores its blocks (keys included) as they are.
    const noise = () => Array.from({ length: 1500 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await c.ok(MemoryAdd, { agentId: 'keys', content: `fact ${i} ${noise()}` })).factId);
    for (let i = 0; i < 10; i++) await c.ok(MemoryAdd, { agentId: 'keyz', content: `after ${i} ${noise()}` });
    c.socket.destroy();
    d = await cycle(d);
    await d.stop();

    // The key of a fact in the middle, whole: its \x00 becomes \x08, so it sorts past every key of agent `keys`.
    // Its copy in a data block: the key, LevelDB's 8-byte sequence and type, then the sealed value
    // (`~` first). A copy in the index block (a separator between blocks) is not read by a scan.
    const inData = (id: string) => findInFiles(d.dataDir, '.ldb', `!fact!keys\x00${id}`).find(([file, at]) => readFileSync(file)[at + 11 + id.length + 8] === 0x7e);
    const victim = ids.findIndex((id, i) => i >= 15 && inData(id) !== undefined);
    assert.ok(victim > 0, 'a fact key stored whole in a data block');
    const [file, at] = inData(ids[victim]!)!;
    setByte(file, at + '!fact!keys'.length, 0x08);

    d = await startDaemon({ socket: d.socket, dataDir: d.dataDir });
    c = await connect(d.socket);
    // Every read over the damaged spot fails; none returns the facts before it as if they were all.
    const whole = await c.call('memory.list', { agentId: 'keys', limit: 100 });
    assert.equal(whole.error?.code, STORAGE_ERROR, JSON.stringify(whole));
    let after: string | undefined;
    let failed = false;
    for (let page = 0; page < 40 && !failed; page++) {
      const r = await c.call('memory.list', after === undefined ? { agentId: 'keys', limit: 5 } : { agentId: 'keys', limit: 5, after });
      if (r.error !== undefined) {
        assert.equal(r.error.code, STORAGE_ERROR);
        failed = true;
        break;
      }
      const result = r.result as { facts: Array<{ id: string }>; next?: string };
      assert.ok(result.next !== undefined, `page ${page} ends the list at ${result.facts.length} facts with no error`);
      after = result.next;
    }
    assert.ok(failed, 'paging reached the damaged key and failed');
    assert.equal((await c.call('admin.export', { agentId: 'keys' })).error?.code, STORAGE_ERROR);
    assert.equal((await c.ok(MemoryList, { agentId: 'keyz', limit: 100 })).facts.length, 10, 'the next agent reads');
    c.socket.destroy();
    await d.stop();
  });
});
