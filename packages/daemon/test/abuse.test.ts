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
