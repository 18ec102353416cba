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

/** Bound of a call that must not hang, and only that: the tests show who was served, not how fast. */
const HANG_GUARD_MS = 30_000;

/** Destroys each socket and waits until every one has closed: nothing of theirs is left to run after the test. */
async function closeAll(sockets: readonly Socket[]): Promise<void> {
  await Promise.all(
    sockets.map((s) => {
      if (s.closed) return undefined;
      const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
      s.destroy();
      return closed;
    }),
  );
}

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
    // Another client is served meanwhile.
    await withTimeout(other.ok(MemoryAdd, { agentId: 'other', content: 'served beside the batch' }), HANG_GUARD_MS, 'an add beside the batch');
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
      await closeAll(sockets);
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
    const answered = new Set<number>();
    /** Errors of the test's own connections: a connection closed while its line is still being written sees EPIPE or ECONNRESET. */
    const errors: Array<{ i: number; code: string | undefined }> = [];
    try {
      for (let i = 0; i < 120; i++) {
        const s = createConnection(d.socket);
        s.setEncoding('utf8').on('data', (text: string) => {
          answers.push(text);
          answered.add(i);
        });
        // Kept, not thrown: an error thrown from here would be an uncaught exception, maybe after the test.
        s.on('error', (err: NodeJS.ErrnoException) => errors.push({ i, code: err.code }));
        sockets.push(s);
        await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
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
      await withTimeout(c.ok(MemoryAdd, { agentId: 'beside', content: 'served beside the unfinished lines' }), HANG_GUARD_MS, 'an add beside them');
      await c.close();
      // Served beside them: the eight within the budget, told nothing, still hold their lines.
      const held = sockets.filter((_, i) => !answered.has(i));
      assert.equal(held.length, 8);
      assert.ok(held.every((s) => !s.destroyed), 'the eight lines within the budget still open after the add');
      assert.ok(residentBytes(d.pid).peak < GiB, `peak RSS ${residentBytes(d.pid).peak} bytes`);
    } finally {
      await closeAll(sockets);
    }
    for (const e of errors) assert.ok(e.code === 'EPIPE' || e.code === 'ECONNRESET', `connection ${e.i}: ${e.code}`);
    // What the budget held is garbage once they close: bounded by the budget, not by what was sent.
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'beside', content: 'served after they closed' });
    await c.close();
    assert.ok(residentBytes(d.pid).now < GiB / 2, `RSS after they closed ${residentBytes(d.pid).now} bytes`);
    await d.stop();
  });
});
