import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClientError, ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { Capabilities, DaemonStatus, PROTOCOL_VERSION } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, tempDir, waitFor, withTimeout } from '@memoryd/test-support';
import { startDaemon } from './helpers/daemon.js';
import { fakeServer } from './helpers/fake-server.js';

after(cleanupAll);

describe('connect and hello', () => {
  it('says hello and keeps the answer: version, protocol, capabilities, pid', async () => {
    const daemon = await startDaemon();
    const client = new DaemonClient({ socket: daemon.socket, autostart: false, env: cleanEnv(), clientName: 'test', clientVersion: '1.2.3' });
    try {
      assert.equal(client.socketPath, daemon.socket);
      assert.equal(client.hello, undefined);
      assert.equal(client.hasCapability(Capabilities.reportNotFound), false);
      const hello = await withTimeout(client.connect(), 10_000, 'connect');
      assert.equal(hello.pid, daemon.pid);
      assert.equal(hello.protocolVersion, PROTOCOL_VERSION);
      assert.equal(typeof hello.daemonVersion, 'string');
      assert.ok(hello.capabilities.includes(Capabilities.reportNotFound));
      assert.deepEqual(client.hello, hello);
      assert.equal(client.hasCapability(Capabilities.reportNotFound), true);
      assert.equal(client.hasCapability('noSuchCapability'), false);
      // Idempotent: connected, connect() answers with the same hello.
      assert.equal(await client.connect(), hello);
    } finally {
      await client.close();
    }
  });

  it('shares one attempt between concurrent connects: one connection reaches the daemon', async () => {
    const daemon = await startDaemon();
    const client = new DaemonClient({ socket: daemon.socket, autostart: false, env: cleanEnv() });
    try {
      const [a, b, c] = await withTimeout(Promise.all([client.connect(), client.connect(), client.connect()]), 10_000, 'connects');
      assert.equal(a, b);
      assert.equal(b, c);
      const status = await client.call(DaemonStatus, {});
      assert.equal(status.connections, 1);
    } finally {
      await client.close();
    }
  });

  it('close() disconnects (capabilities no longer claimed); the next call connects again', async () => {
    const daemon = await startDaemon();
    const client = new DaemonClient({ socket: daemon.socket, autostart: false, env: cleanEnv() });
    try {
      await client.connect();
      await client.close();
      assert.equal(client.hasCapability(Capabilities.reportNotFound), false);
      assert.equal(client.hello?.pid, daemon.pid, 'hello is kept from the last connect');
      const status = await withTimeout(client.call(DaemonStatus, {}), 10_000, 'status');
      assert.equal(status.pid, daemon.pid);
      assert.equal(client.hasCapability(Capabilities.reportNotFound), true);
      // The daemon saw the first connection go: only ours is open now.
      await waitFor(async () => (await client.call(DaemonStatus, {})).connections === 1, 5_000, 'one connection');
    } finally {
      await client.close();
    }
  });

  it('without a daemon and without autostart: Unavailable, message exactly as docs/api-stability.md pins it', async () => {
    const socket = join(tempDir(), 'none.sock');
    const client = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
    const err = await withTimeout(client.connect(), 5_000, 'connect').then(
      () => assert.fail('connected to nothing'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ClientError);
    assert.ok(isClientError(err, ClientErrorCodes.Unavailable));
    assert.equal(isClientError(err, ClientErrorCodes.Rpc), false);
    const cause = err.cause as NodeJS.ErrnoException;
    assert.equal(cause.code, 'ENOENT');
    assert.equal(err.message, `memory daemon unavailable at ${socket}: ${cause.message}`);
    assert.match(err.message, /^memory daemon unavailable at .*: connect ENOENT /);
    // call() surfaces the same failure.
    await assert.rejects(client.call(DaemonStatus, {}), (e: unknown) => isClientError(e, ClientErrorCodes.Unavailable));
    await client.close();
  });

  it('refuses a daemon whose hello answer is not a daemon.hello result', async () => {
    const socket = join(tempDir(), 'f.sock');
    const server = await fakeServer(socket, (req, _s, reply) => reply({ jsonrpc: '2.0', id: req.id, result: { pid: 'nope' } }));
    const client = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
    try {
      await assert.rejects(withTimeout(client.connect(), 5_000, 'connect'), (e: unknown) => isClientError(e, ClientErrorCodes.Unavailable));
      assert.equal(client.hello, undefined);
      assert.equal(client.hasCapability(Capabilities.reportNotFound), false);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('MEMORYD_SOCKET counts as explicit: used as is, its directory not judged', async () => {
    const tmp = tempDir();
    const open = join(tmp, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755); // would be refused as a default socket dir
    const daemon = await startDaemon({ socket: join(open, 'd.sock'), dataDir: join(tmp, 'data') });
    const env = cleanEnv({ MEMORYD_SOCKET: daemon.socket, XDG_RUNTIME_DIR: tmp });
    const client = new DaemonClient({ autostart: false, env });
    try {
      assert.equal(client.socketPath, daemon.socket);
      const hello = await withTimeout(client.connect(), 10_000, 'connect');
      assert.equal(hello.pid, daemon.pid);
    } finally {
      await client.close();
    }
  });
});
