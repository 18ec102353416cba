// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "JSON-RPC details" and the -32700/-32600 rows of "Errors",
// byte for byte on the wire: parse errors, invalid requests and ids,
// notifications (no reply, even for errors), batches (mixed, only invalid,
// only notifications, empty), ids echoed as given, and a last line without
// "\n" answered when the client half-closes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withTimeout } from '@memoryd/test-support';
import { useDaemon } from './helpers/fixture.js';
import { assertError, assertServing, connect, type Message, type RpcClient, type RpcResponse } from './helpers/rpc.js';

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

const hello = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'daemon.hello' });

/** Sends raw lines on a fresh connection and returns the next message. */
async function oneShot(raw: string): Promise<{ c: RpcClient; m: Message }> {
  const c = await shared.connect();
  c.sendRaw(raw);
  return { c, m: await c.nextMessage(5000) };
}

function asBatch(m: Message): RpcResponse[] {
  assert.ok(Array.isArray(m), `expected a batch response, got ${JSON.stringify(m)}`);
  return m;
}

describe('parse_error (-32700)', () => {
  for (const line of ['not json', '{"jsonrpc":"2.0","id":1,', '{\'single\': 1}', '\u00ff\u00fe', '[1,2']) {
    it(`answers ${JSON.stringify(line)} with -32700, id null, and stays usable`, async () => {
      const { c, m } = await oneShot(line + '\n');
      assertError(m, -32700, null);
      await assertServing(c);
      await assertServing(watcher);
    });
  }
});

describe('invalid_request (-32600)', () => {
  for (const [name, id] of [['an object', {}], ['an array', []], ['true', true], ['false', false]] as const) {
    it(`an id that is ${name} makes the request invalid, answered with id null`, async () => {
      const { c, m } = await oneShot(hello(id) + '\n');
      assertError(m, -32600, null);
      await assertServing(c);
    });
  }

  const invalid: Array<[string, unknown]> = [
    ['no jsonrpc member', { id: 1, method: 'daemon.hello' }],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'daemon.hello' }],
    ['jsonrpc 2 as a number', { jsonrpc: 2, id: 1, method: 'daemon.hello' }],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 42 }],
    ['no method', { jsonrpc: '2.0', id: 1 }],
    ['a bare number', 42],
    ['a bare string', 'daemon.hello'],
    ['null', null],
  ];
  for (const [name, value] of invalid) {
    it(`rejects ${name} with -32600`, async () => {
      const { c, m } = await oneShot(JSON.stringify(value) + '\n');
      const id = (m as RpcResponse).id;
      assertError(m, -32600);
      assert.ok(id === null || id === 1, `id must be null or the request's: ${JSON.stringify(id)}`);
      await assertServing(c);
    });
  }

  it('answers an empty batch with one -32600 error object, not an array', async () => {
    const { c, m } = await oneShot('[]\n');
    assertError(m, -32600, null);
    await assertServing(c);
  });
});

describe('ids', () => {
  it('echoes string, number and null ids exactly', async () => {
    const c = await shared.connect();
    for (const id of ['abc', '', 'ünï', 0, -5, 1.25, 9007199254740991]) {
      c.sendRaw(hello(id) + '\n');
      const m = (await c.nextMessage(5000)) as RpcResponse;
      assert.equal(m.jsonrpc, '2.0');
      assert.deepEqual(m.id, id);
      assert.equal(m.error, undefined);
    }
    c.sendRaw(hello(null) + '\n');
    const m = (await c.nextMessage(5000)) as RpcResponse;
    assert.equal(m.id, null);
    assert.equal((m.result as { protocolVersion: number }).protocolVersion, 1, 'id null is still a request');
  });
});

describe('notifications', () => {
  it('get no reply, even for an unknown method or bad params', async () => {
    const c = await shared.connect();
    c.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'daemon.hello' }) + '\n');
    c.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'no.such.method' }) + '\n');
    c.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'memory.add', params: { agentId: '' } }) + '\n');
    c.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'memory.add', params: { agentId: 'notif', content: 'quiet' } }) + '\n');
    const r = await c.request('after-notifications', 'daemon.hello');
    assert.equal(r.error, undefined);
    assert.equal(c.pending(), 0, 'nothing but the request\'s reply arrived');
    await assertServing(c);
    assert.equal(c.pending(), 0);
  });

  it('a batch of only notifications gets no reply at all', async () => {
    const c = await shared.connect();
    c.sendRaw(JSON.stringify([{ jsonrpc: '2.0', method: 'daemon.hello' }, { jsonrpc: '2.0', method: 'nope' }]) + '\n');
    const r = await c.request('after-batch', 'daemon.hello');
    assert.equal(r.error, undefined);
    assert.equal(c.pending(), 0, 'no empty array or other reply for the batch');
  });
});

describe('batches', () => {
  it('answers a mixed batch with exactly one entry per non-notification', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'daemon.hello' },
      { foo: 'not a request' },
      { jsonrpc: '2.0', method: 'daemon.hello' },
      { jsonrpc: '2.0', id: 'b', method: 'memory.add', params: { agentId: 'batcher', content: 'from a batch' } },
      { jsonrpc: '2.0', id: 3, method: 'no.such' },
      { jsonrpc: '2.0', id: 4, method: 'memory.add', params: { agentId: 'batcher' } },
      { jsonrpc: '2.0', id: {}, method: 'daemon.hello' },
      7,
    ];
    const { c, m } = await oneShot(JSON.stringify(batch) + '\n');
    const rs = asBatch(m);
    assert.equal(rs.length, 7, JSON.stringify(rs));
    const byId = (id: unknown) => rs.filter((r) => r.id === id);
    assert.equal(byId(1).length, 1);
    assert.equal((byId(1)[0]!.result as { protocolVersion: number }).protocolVersion, 1);
    assert.match((byId('b')[0]!.result as { factId: string }).factId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assertError(byId(3)[0]!, -32601, 3);
    assertError(byId(4)[0]!, -32602, 4);
    const nulls = byId(null);
    assert.equal(nulls.length, 3, 'the invalid object, the bad id and the bare number');
    for (const r of nulls) assertError(r, -32600, null);
    assert.equal(c.pending(), 0, 'one line for the whole batch');
    await assertServing(c);
  });

  it('answers a batch of only invalid entries with an array of errors', async () => {
    const { c, m } = await oneShot('[1,"x",{"jsonrpc":"2.0"}]\n');
    const rs = asBatch(m);
    assert.equal(rs.length, 3);
    for (const r of rs) assertError(r, -32600, null);
    await assertServing(c);
  });

  it('answers a batch that is not valid JSON with one -32700', async () => {
    const { c, m } = await oneShot('[{"jsonrpc":"2.0","id":1,"method":"daemon.hello"},\n');
    assertError(m, -32700, null);
    await assertServing(c);
  });
});

describe('framing', () => {
  it('answers a last line without "\\n" when the client ends its write side', async () => {
    const c = await connect(shared.daemon.socket);
    c.socket.end(hello('unterminated'));
    const m = (await c.nextMessage(5000)) as RpcResponse;
    assert.equal(m.id, 'unterminated');
    assert.equal(m.error, undefined);
    await withTimeout(c.closed, 5000, 'the daemon to close after answering');
  });

  it('reassembles a request split anywhere, even inside a UTF-8 character', async () => {
    const c = await shared.connect();
    const bytes = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 'split', method: 'memory.add', params: { agentId: 'split', content: 'é€😀 split' } }) + '\n',
    );
    for (let i = 0; i < bytes.length; i++) {
      c.socket.write(bytes.subarray(i, i + 1));
      // Let each byte leave separately so the daemon sees many small reads.
      if (i % 7 === 0) await new Promise<void>((r) => setImmediate(r));
    }
    const m = (await c.nextMessage(5000)) as RpcResponse;
    assert.equal(m.id, 'split');
    assert.equal(m.error, undefined);
    const l = await c.call('memory.list', { agentId: 'split' });
    assert.equal((l.result as { facts: Array<{ content: string }> }).facts[0]?.content, 'é€😀 split');
  });

  it('answers several requests written in one chunk, each on its own line', async () => {
    const c = await shared.connect();
    c.sendRaw([1, 2, 3, 4, 5].map((id) => hello(id)).join('\n') + '\n');
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(((await c.nextMessage(5000)) as RpcResponse).id);
    assert.deepEqual(ids.sort(), [1, 2, 3, 4, 5]);
    for (const line of [hello(6)]) c.sendRaw(line + '\n');
    assert.equal(((await c.nextMessage(5000)) as RpcResponse).id, 6);
  });
});
