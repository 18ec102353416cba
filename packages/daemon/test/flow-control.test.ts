// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// The connection layer in-process, with methods the test controls: what a
// black box cannot show. The limit of 64 requests in progress per
// connection (docs/protocol.md, "JSON-RPC details") and the generic -32603
// for a bug (docs/protocol.md, "Errors") need a method that blocks until released and
// one that throws something that is not ours.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ErrorCodes, Limits } from '@memoryd/protocol';
import { createLogger, RpcDispatcher, type RpcMethod, SocketServer } from '@memoryd/daemon';
import { cleanupAll, tempDir, waitFor } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';

after(cleanupAll);

/** A method whose calls wait until `open()`; counts how many are running. */
function gate(): { method: RpcMethod; running(): number; started(): number; open(): void } {
  let running = 0;
  let started = 0;
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    method: {
      name: 'test.block',
      async handle(params) {
        running++;
        started++;
        await opened;
        running--;
        return params ?? null;
      },
    },
    running: () => running,
    started: () => started,
    open: () => release(),
  };
}

async function serve(methods: RpcMethod[], logLines: string[] = []) {
  const log = createLogger('debug', (line) => void logLines.push(line));
  const server = new SocketServer(new RpcDispatcher(methods, log), 8, log);
  const path = join(tempDir(), 's.sock');
  await server.listen({ path });
  return { server, path };
}

test('at most 64 requests are in progress on one connection; the rest wait, then all answer', async () => {
  const g = gate();
  const { server, path } = await serve([g.method]);
  const client = await connect(path);
  try {
    const total = 200;
    const answers = [];
    for (let i = 0; i < total; i++) answers.push(client.request(i, 'test.block', { i }));
    await waitFor(() => g.running() === Limits.maxInFlightPerConnection, 5_000, 'the first 64 to start');
    // More lines are on the socket, but no 65th request may start.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(g.running(), 64);
    assert.equal(g.started(), 64);
    g.open();
    const responses = await Promise.all(answers);
    assert.equal(g.started(), total);
    assert.deepEqual(
      responses.map((r) => r.id),
      Array.from({ length: total }, (_, i) => i),
    );
  } finally {
    g.open();
    await client.close();
    await server.close();
  }
});

test('a batch counts each of its requests against the 64', async () => {
  const g = gate();
  const { server, path } = await serve([g.method]);
  const client = await connect(path);
  try {
    // A whole batch (64 entries, the most one may hold) takes all 64 slots: a request sent after it waits.
    const batch = Array.from({ length: 64 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'test.block' }));
    client.sendRaw(JSON.stringify(batch) + '\n');
    await waitFor(() => g.running() === 64, 5_000, 'the 64 of the batch to start');
    const single = client.request('after', 'test.block');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(g.started(), 64, 'the request after the batch waits for a slot');
    g.open();
    const reply = await client.nextMessage();
    assert.ok(Array.isArray(reply));
    assert.equal(reply.length, 64);
    assert.equal((await single).id, 'after');
    assert.equal(g.started(), 65);
  } finally {
    g.open();
    await client.close();
    await server.close();
  }
});

test('a bug is -32603 with a generic message; its stack goes to the log only', async () => {
  const logLines: string[] = [];
  const boom: RpcMethod = {
    name: 'test.boom',
    async handle() {
      throw new TypeError('secret detail of a bug');
    },
  };
  const { server, path } = await serve([boom], logLines);
  const client = await connect(path);
  try {
    const response = await client.call('test.boom', {});
    assert.equal(response.error?.code, ErrorCodes.InternalError);
    assert.equal(response.error?.message, 'Internal error');
    assert.doesNotMatch(JSON.stringify(response), /secret detail/);
    const logged = logLines.map((l) => JSON.parse(l) as { level: string; err?: { stack?: string } });
    const entry = logged.find((l) => l.level === 'error' && l.err?.stack?.includes('secret detail of a bug'));
    assert.ok(entry, 'the error and its stack are logged');
    // The connection stays usable after a bug in one request.
    const again = await client.call('test.boom', {});
    assert.equal(again.error?.code, ErrorCodes.InternalError);
  } finally {
    await client.close();
    await server.close();
  }
});
