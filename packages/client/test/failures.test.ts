import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { Capabilities, DaemonStatus, Limits, MemoryAdd } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, tempDir, waitFor, withTimeout } from '@memoryd/test-support';
import { answerHello, FAKE_HELLO, type FakeHandler, fakeServer, type FakeServer } from './helpers/fake-server.js';

// A real daemon answers promptly and keeps its connections; these cases
// need a peer that misbehaves on demand, so a tiny NDJSON server stands in.

after(cleanupAll);

/** The rejection of `p` (bounded), failing when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return withTimeout(p, 10_000, 'the call').then(
    (v) => assert.fail(`expected a rejection, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
}

/** A fake server and a client of it; both closed by `done`. */
async function setup(handler: FakeHandler, opts: { requestTimeoutMs?: number } = {}) {
  const socket = join(tempDir(), 'f.sock');
  const server: FakeServer = await fakeServer(socket, handler);
  const client = new DaemonClient({ socket, autostart: false, env: cleanEnv(), ...opts });
  const done = async () => {
    await client.close();
    await server.close();
  };
  return { socket, server, client, done };
}

const params = { agentId: 'f', content: 'x' };

/** Connects, expects one call (of `params`) to fail with ConnectionLost, then closes both ends. */
async function expectCallLost({ client, done }: { client: DaemonClient; done: () => Promise<void> }): Promise<void> {
  try {
    await client.connect();
    const err = await rejection(client.call(MemoryAdd, params));
    assert.ok(isClientError(err, ClientErrorCodes.ConnectionLost));
  } finally {
    await done();
  }
}

describe('timeouts', () => {
  it('a request with no answer fails with Timeout; the connection stays usable and a late answer is dropped', async () => {
    let held: { id: unknown; reply: (m: unknown) => void } | undefined;
    const { client, server, done } = await setup((req, _s, reply) => {
      if (answerHello(req, reply)) return;
      if (req.method === MemoryAdd.method && held === undefined) {
        held = { id: req.id, reply }; // never answered in time
        return;
      }
      reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } });
    });
    try {
      await client.connect();
      const started = Date.now();
      const err = await rejection(client.call(MemoryAdd, params, { timeoutMs: 150 }));
      assert.ok(isClientError(err, ClientErrorCodes.Timeout));
      assert.ok(Date.now() - started >= 140, 'not before the timeout');
      // The late answer arrives and goes nowhere; the next call gets its own.
      held!.reply({ jsonrpc: '2.0', id: held!.id, result: { factId: 'late', createdAt: 'late' } });
      const next = await withTimeout(client.call(MemoryAdd, { agentId: 'f', content: 'y' }), 5_000, 'next call');
      assert.deepEqual(next, { facts: [] });
      assert.equal(server.connections, 1, 'a timeout does not reconnect');
    } finally {
      await done();
    }
  });

  it('requestTimeoutMs bounds every request, including the hello of connect()', async () => {
    const { client, done } = await setup(() => undefined, { requestTimeoutMs: 100 });
    try {
      const err = await rejection(client.connect());
      assert.ok(isClientError(err, ClientErrorCodes.Timeout));
      assert.equal(client.hello, undefined);
      assert.equal(client.hasCapability(Capabilities.reportNotFound), false);
    } finally {
      await done();
    }
  });
});

describe('connection lost', () => {
  it('a connection closed before the answer fails the call with ConnectionLost; the next call reconnects', async () => {
    let dropped = 0;
    const { client, server, done } = await setup((req, socket, reply) => {
      if (answerHello(req, reply)) return;
      if (req.method === MemoryAdd.method && dropped === 0) {
        dropped += 1;
        socket.destroy();
        return;
      }
      reply({ jsonrpc: '2.0', id: req.id, result: { ok: req.method } });
    });
    try {
      await client.connect();
      const err = await rejection(client.call(MemoryAdd, params));
      assert.ok(isClientError(err, ClientErrorCodes.ConnectionLost));
      await waitFor(() => !client.hasCapability(Capabilities.reportNotFound), 5_000, 'the client to see the close');
      // Never retried: the server saw the write once.
      assert.equal(server.requests.filter((r) => r.method === MemoryAdd.method).length, 1);
      const status = await withTimeout(client.call(DaemonStatus, {}), 5_000, 'next call');
      assert.deepEqual(status, { ok: DaemonStatus.method });
      assert.equal(server.connections, 2);
      assert.equal(server.requests.filter((r) => r.method === 'daemon.hello').length, 2);
    } finally {
      await done();
    }
  });

  it('every call in flight fails with ConnectionLost when the connection closes', async () => {
    let seen = 0;
    const { client, done } = await setup((req, socket, reply) => {
      if (answerHello(req, reply)) return;
      seen += 1;
      if (seen === 3) socket.destroy();
    });
    try {
      await client.connect();
      const calls = [1, 2, 3].map((i) => client.call(MemoryAdd, { agentId: 'f', content: `c${i}` }));
      const errors = await Promise.all(calls.map(rejection));
      for (const err of errors) assert.ok(isClientError(err, ClientErrorCodes.ConnectionLost));
    } finally {
      await done();
    }
  });

  it('close() fails waiting calls with ConnectionLost', async () => {
    const { client, done } = await setup((req, _s, reply) => void answerHello(req, reply));
    try {
      await client.connect();
      const pending = client.call(MemoryAdd, params);
      const outcome = rejection(pending);
      await client.close();
      assert.ok(isClientError(await outcome, ClientErrorCodes.ConnectionLost));
      assert.equal(client.hasCapability(Capabilities.reportNotFound), false);
      assert.deepEqual(client.hello, FAKE_HELLO);
    } finally {
      await done();
    }
  });

  it('close() during the hello fails connect() with ConnectionLost', async () => {
    const { client, server, done } = await setup(() => undefined);
    try {
      const connecting = rejection(client.connect());
      await waitFor(() => server.requests.length === 1, 5_000, 'the hello to arrive');
      await withTimeout(client.close(), 5_000, 'close');
      assert.ok(isClientError(await connecting, ClientErrorCodes.ConnectionLost));
    } finally {
      await done();
    }
  });

  it('a line that is not JSON drops the connection: ConnectionLost', async () => {
    const fixture = await setup((req, socket, reply) => {
      if (!answerHello(req, reply)) socket.write('this is not json\n');
    });
    await expectCallLost(fixture);
  });

  it(`a line over ${Limits.maxLineBytes} bytes drops the connection: ConnectionLost`, async () => {
    const fixture = await setup((req, socket, reply) => {
      if (answerHello(req, reply)) return;
      // An answer that never ends: the client must stop buffering at the limit.
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":{"pad":"`;
      socket.write(head + 'x'.repeat(Limits.maxLineBytes + 1 - head.length));
    });
    await expectCallLost(fixture);
  });

  it('an answer of just under the limit is accepted', async () => {
    const { client, done } = await setup((req, _s, reply) => {
      if (answerHello(req, reply)) return;
      const shell = JSON.stringify({ jsonrpc: '2.0', id: req.id, result: { pad: '' } });
      reply({ jsonrpc: '2.0', id: req.id, result: { pad: 'é'.repeat(Math.floor((Limits.maxLineBytes - shell.length) / 2)) } });
    });
    try {
      await client.connect();
      const result = (await withTimeout(client.call(MemoryAdd, params), 10_000, 'big answer')) as unknown as { pad: string };
      assert.ok(result.pad.length > 4_000_000);
      assert.equal(result.pad.replaceAll('é', ''), '', 'multi-byte characters split across chunks decode whole');
    } finally {
      await done();
    }
  });
});

describe('params JSON cannot encode', () => {
  it('reject with JSON.stringify\'s TypeError before anything is sent; the connection stays usable', async () => {
    const { client, server, done } = await setup((req, _s, reply) => {
      if (!answerHello(req, reply)) reply({ jsonrpc: '2.0', id: req.id, result: { ok: true } });
    });
    try {
      await client.connect();
      const bad = { agentId: 'f', content: 'x', tags: [10n] } as unknown as typeof params;
      await assert.rejects(client.call(MemoryAdd, bad), TypeError);
      assert.deepEqual(server.requests.map((r) => r.method), ['daemon.hello']);
      assert.deepEqual(await withTimeout(client.call(MemoryAdd, params), 5_000, 'next call'), { ok: true });
    } finally {
      await done();
    }
  });
});
