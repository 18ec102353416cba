// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Framing": a line longer than 8 MiB gets a -32600 error
// response and then that connection is closed, while the daemon keeps
// serving everyone else; a line of exactly 8 MiB is still a request; a
// non-JSON line is -32700 and the connection stays usable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withTimeout } from '@memoryd/test-support';
import { useDaemon } from './helpers/fixture.js';
import { assertError, assertServing, connect, type RpcClient, type RpcResponse } from './helpers/rpc.js';

const MAX_LINE = 8 * 1024 * 1024;
let watcher: RpcClient;
const shared = useDaemon(
  {},
  {
    setup: async (s) => {
      watcher = await s.connect();
    },
    // The bystander connection was served before and must still be.
    beforeStop: async () => assertServing(watcher),
  },
);

/** A daemon.hello request line (without "\n") of exactly `bytes` bytes, padded in an ignored param. */
function helloLineOf(bytes: number, id: string): string {
  const base = JSON.stringify({ jsonrpc: '2.0', id, method: 'daemon.hello', params: { pad: '' } });
  const line = base.replace('"pad":""', `"pad":"${'x'.repeat(bytes - Buffer.byteLength(base))}"`);
  assert.equal(Buffer.byteLength(line), bytes);
  return line;
}

describe('line length', () => {
  it('answers a line of exactly 8 MiB normally', async () => {
    const c = await shared.connect();
    c.sendRaw(helloLineOf(MAX_LINE, 'max') + '\n');
    const m = (await c.nextMessage(20_000)) as RpcResponse;
    assert.equal(m.id, 'max');
    assert.equal(m.error, undefined, JSON.stringify(m.error));
    await assertServing(c);
  });

  it('answers a line of 8 MiB + 1 byte with -32600, then closes that connection only', async () => {
    const c = await connect(shared.daemon.socket);
    c.sendRaw(helloLineOf(MAX_LINE + 1, 'over') + '\n');
    assertError(await c.nextMessage(20_000), -32600);
    await withTimeout(c.closed, 10_000, 'the over-long connection to close');
    assert.equal(c.pending(), 0, 'nothing after the error');
    await assertServing(watcher);
    await assertServing(shared.client);
  });

  it('does not wait for a newline: over 8 MiB without one is already too long', async () => {
    const c = await connect(shared.daemon.socket);
    // No "\n" and the write side stays open: the daemon must not buffer on.
    c.sendRaw('{"jsonrpc":"2.0","id":1,"method":"daemon.hello","params":{"pad":"' + 'y'.repeat(MAX_LINE + 16));
    assertError(await c.nextMessage(20_000), -32600);
    await withTimeout(c.closed, 10_000, 'the over-long connection to close');
    await assertServing(watcher);
  });

  it('judges each line on its own: many lines adding up to over 8 MiB are fine', async () => {
    const c = await shared.connect();
    const line = helloLineOf(1024 * 1024, 'chunk');
    c.sendRaw(Array.from({ length: 10 }, () => line).join('\n') + '\n');
    for (let i = 0; i < 10; i++) {
      const m = (await c.nextMessage(20_000)) as RpcResponse;
      assert.equal(m.id, 'chunk');
      assert.equal(m.error, undefined);
    }
    await assertServing(c);
  });

  it('keeps serving another connection while one streams a huge line', async () => {
    const c = await connect(shared.daemon.socket);
    const done = c.closed;
    // Half of the over-long line first; the bystander is served meanwhile.
    c.sendRaw('{"jsonrpc":"2.0","id":9,"method":"daemon.hello","params":{"pad":"' + 'z'.repeat(MAX_LINE / 2));
    await assertServing(watcher);
    c.sendRaw('z'.repeat(MAX_LINE / 2) + '"}}\n');
    assertError(await c.nextMessage(20_000), -32600);
    await withTimeout(done, 10_000, 'the over-long connection to close');
    await assertServing(watcher);
  });
});

describe('non-JSON lines', () => {
  it('answers -32700 and keeps the connection usable', async () => {
    const c = await shared.connect();
    c.sendRaw('this is not json\n');
    assertError(await c.nextMessage(5000), -32700, null);
    c.sendRaw(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x0a]));
    assertError(await c.nextMessage(5000), -32700, null);
    await assertServing(c);
    assert.equal(c.isClosed(), false);
    await assertServing(watcher);
  });
});
