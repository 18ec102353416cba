// Issue 13: bounded under abuse. Hostile or careless clients cannot take
// the daemon's memory or its time from others: a batch is at most 64
// entries, and each of them counts against its connection's 64 requests
// in progress.
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { DaemonStatus, Limits, MemoryAdd } from '@memoryd/protocol';
import { cleanupAll, residentBytes, startDaemon, waitFor, withTimeout } from '@memoryd/test-support';
import { assertError, connect } from './helpers/rpc.js';

after(cleanupAll);

const GiB = 1024 * 1024 * 1024;

describe('batches', () => {
  it('a 50,000-entry batch is one -32600 with id null, runs nothing, and leaves others served', async () => {
    const d = await startDaemon();
    const hostile = await connect(d.socket);
    const other = await connect(d.socket);
    const search = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'memory.search', params: { agentId: 'a', query: `word${i}` } });
    const adds = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'memory.add', params: { agentId: 'batch', content: `batched fact ${i}` } }));

    hostile.sendRaw(`${JSON.stringify(Array.from({ length: 50_000 }, (_, i) => search(i)))}\n`);
    const answer = await hostile.nextMessage(10_000);
    assert.ok(!Array.isArray(answer), 'one error, not an array');
    assertError(answer, -32600, null);
    assert.match((answer as { error: { message: string } }).error.message, /at most 64 entries/);
    // Another client is served at once meanwhile.
    await withTimeout(other.ok(MemoryAdd, { agentId: 'other', content: 'served beside the batch' }), 1_000, 'an add beside the batch');
    assert.ok(residentBytes(d.pid).peak < GiB, `peak RSS ${residentBytes(d.pid).peak} bytes`);

    // One entry over: nothing of it runs. At the limit: all of it does.
    hostile.sendRaw(`${JSON.stringify(adds(Limits.maxBatchEntries + 1))}\n`);
    assertError(await hostile.nextMessage(), -32600, null);
    assert.equal((await other.ok(DaemonStatus, {})).facts, 1, 'no entry of the refused batch ran');
    hostile.sendRaw(`${JSON.stringify(adds(Limits.maxBatchEntries))}\n`);
    const answered = await hostile.nextMessage();
    assert.ok(Array.isArray(answered) && answered.length === Limits.maxBatchEntries);
    assert.equal((await other.ok(DaemonStatus, {})).facts, 1 + Limits.maxBatchEntries);
    hostile.socket.destroy();
    other.socket.destroy();
    await d.stop();
  });
});

describe('idle connections', () => {
  it('1,100 idle connections: 1,024 held, the rest refused with -32011 and one log line, and the daemon serves once they go', async () => {
    const d = await startDaemon({ logLevel: 'info' });
    const sockets: Socket[] = [];
    const refused: string[] = [];
    try {
      for (let i = 0; i < 1_100; i++) {
        const s = createConnection(d.socket);
        s.setEncoding('utf8').on('data', (text: string) => refused.push(text));
        s.on('error', () => {});
        sockets.push(s);
        await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
      }
      await waitFor(() => refused.length >= 1_100 - Limits.defaultMaxConnections, 10_000, 'the connections past the cap refused');
      assert.equal(refused.length, 1_100 - Limits.defaultMaxConnections);
      for (const line of refused) assert.equal(JSON.parse(line).error.code, -32011);
      const lines = d.stderr().split('\n').filter((l) => l.includes('too many connections'));
      assert.equal(lines.length, 1, 'one warn line, not one per refusal');
    } finally {
      for (const s of sockets) s.destroy();
    }
    const c = await connect(d.socket);
    await c.ok(DaemonStatus, {});
    c.socket.destroy();
    await d.stop();
    assert.match(d.stderr(), /"connections refused: too many connections".*"refused":75/, 'the count is logged at the stop');
  });
});

describe('unfinished lines', () => {
  it('120 connections each holding 7.9 MiB of a line: the largest are closed past 64 MiB in all, RSS stays under 1 GiB, others are served', async () => {
    const d = await startDaemon();
    const chunk = Buffer.alloc(Math.floor(7.9 * 1024 * 1024), 0x61);
    const sockets: Socket[] = [];
    const answers: string[] = [];
    try {
      for (let i = 0; i < 120; i++) {
        const s = createConnection(d.socket);
        s.setEncoding('utf8').on('data', (text: string) => answers.push(text));
        s.on('error', (err) => assert.fail(`connection ${i}: ${err.message}`));
        sockets.push(s);
        await new Promise<void>((resolve) => s.once('connect', resolve));
        s.write(chunk);
      }
      // 64 MiB holds 8 of these lines: the other 112 are told and closed as they grow past it.
      const lines = () => answers.join('').split('\n').filter((l) => l !== '');
      await waitFor(() => lines().length >= 112, 60_000, 'the connections past the budget closed');
      assert.equal(lines().length, 112);
      for (const text of lines()) {
        const error = JSON.parse(text) as { id: unknown; error: { code: number; message: string } };
        assert.equal(error.id, null);
        assert.equal(error.error.code, -32600);
        assert.match(error.error.message, /unfinished lines/);
      }
      const c = await connect(d.socket);
      await withTimeout(c.ok(MemoryAdd, { agentId: 'beside', content: 'served beside the unfinished lines' }), 1_000, 'an add beside them');
      c.socket.destroy();
      assert.ok(residentBytes(d.pid).peak < GiB, `peak RSS ${residentBytes(d.pid).peak} bytes`);
    } finally {
      for (const s of sockets) s.destroy();
    }
    // What the budget held is garbage once they close: bounded by the budget, not by what was sent.
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'beside', content: 'served after they closed' });
    c.socket.destroy();
    assert.ok(residentBytes(d.pid).now < GiB / 2, `RSS after they closed ${residentBytes(d.pid).now} bytes`);
    await d.stop();
  });
});
