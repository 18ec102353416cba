// What an older daemon would silently ignore is refused by the client
// (docs/protocol.md, "Protocol version and capabilities"): filters on
// memory.search and memory.list, memory.tags, memory.history and an
// update's tags, sent to a daemon that does not announce `filters` or
// `history`, and memory.list newest first to one that does not announce
// `listOrder`, fail with MEMORYD_UNSUPPORTED naming the capability, and
// nothing reaches the daemon. The same calls without them go through.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { MemoryHistory, MemoryList, MemoryReflect, MemorySearch, MemoryTags } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, tempDir, withTimeout } from '@memoryd/test-support';
import { FAKE_HELLO, fakeServer } from './helpers/fake-server.js';

after(cleanupAll);

const ID = '01J00000000000000000000000';

async function olderDaemon(capabilities: string[]) {
  const socket = join(tempDir(), 'old.sock');
  const server = await fakeServer(socket, (req, _socket, reply) => {
    if (req.method === 'daemon.hello') reply({ jsonrpc: '2.0', id: req.id, result: { ...FAKE_HELLO, capabilities } });
    else if (req.method === 'memory.search' || req.method === 'memory.list') reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } });
    else if (req.method === 'memory.reflect') reply({ jsonrpc: '2.0', id: req.id, result: { action: 'update', factId: ID, supersededBy: ID } });
    else reply({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'method not found' } });
  });
  const client = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
  return { server, client, done: async () => (await client.close(), await server.close()) };
}

describe('capabilities the client checks', () => {
  it('refuses filters, tags, history and tag edits to a daemon that lacks them, sending nothing', async () => {
    const { server, client, done } = await olderDaemon(['reportNotFound', 'context']);
    try {
      const refused: Array<[Promise<unknown>, string]> = [
        [client.call(MemorySearch, { agentId: 'a', query: 'q', tags: ['t'] }), 'filters'],
        [client.call(MemorySearch, { agentId: 'a', query: 'q', since: '2026-01-01T00:00:00Z' }), 'filters'],
        [client.call(MemoryList, { agentId: 'a', until: '2026-01-01T00:00:00Z' }), 'filters'],
        [client.call(MemoryTags, { agentId: 'a' }), 'filters'],
        [client.call(MemoryHistory, { agentId: 'a', factId: ID }), 'history'],
        [client.call(MemoryReflect, { agentId: 'a', action: 'update', factId: ID, tags: ['x'] }), 'history'],
      ];
      for (const [call, capability] of refused) {
        const err = await withTimeout(call, 10_000, 'the call').then(
          () => assert.fail('expected a refusal'),
          (e: unknown) => e,
        );
        assert.ok(isClientError(err, ClientErrorCodes.Unsupported), String(err));
        assert.equal(err.capability, capability);
        assert.match(err.message, new RegExp(`^memoryd 0\\.0\\.0-fake at .*old\\.sock cannot .*: it does not announce capability "${capability}"; upgrade memoryd and restart it$`));
      }
      assert.deepEqual(server.requests.map((r) => r.method), ['daemon.hello'], 'nothing but the hello was sent');
      // Without them, the same methods go through.
      assert.deepEqual(await client.call(MemorySearch, { agentId: 'a', query: 'q' }), { facts: [] });
      assert.deepEqual(await client.call(MemoryList, { agentId: 'a' }), { facts: [] });
      await client.call(MemoryReflect, { agentId: 'a', action: 'update', factId: ID, content: 'new text' });
      assert.deepEqual(server.requests.map((r) => r.method), ['daemon.hello', 'memory.search', 'memory.list', 'memory.reflect']);
    } finally {
      await done();
    }
  });

  it('refuses order "newest" on memory.list to a daemon without listOrder, and names each capability a call lacks', async () => {
    const { server, client, done } = await olderDaemon(['reportNotFound', 'context', 'filters', 'history']);
    try {
      const err = await withTimeout(client.call(MemoryList, { agentId: 'a', order: 'newest' }), 10_000, 'the call').then(
        () => assert.fail('expected a refusal'),
        (e: unknown) => e,
      );
      assert.ok(isClientError(err, ClientErrorCodes.Unsupported), String(err));
      assert.equal(err.capability, 'listOrder');
      assert.match(err.message, /^memoryd 0\.0\.0-fake at .*old\.sock cannot list facts newest first \(memory\.list with order "newest"\): it does not announce capability "listOrder"; upgrade memoryd and restart it$/);
      await assert.rejects(client.call(MemoryList, { agentId: 'a', order: 'newest', tags: ['t'], after: ID }), (e: unknown) => isClientError(e, ClientErrorCodes.Unsupported) && e.capability === 'listOrder');
      assert.deepEqual(server.requests.map((r) => r.method), ['daemon.hello'], 'nothing but the hello was sent');
      // 'oldest' is what every daemon does: it goes through, as filters do to a daemon with them.
      assert.deepEqual(await client.call(MemoryList, { agentId: 'a', order: 'oldest', tags: ['t'] }), { facts: [] });
      assert.deepEqual(server.requests.at(-1)?.params, { agentId: 'a', order: 'oldest', tags: ['t'] });
    } finally {
      await done();
    }
    // A daemon announcing listOrder alone still lacks filters: a filtered newest-first list names that.
    const other = await olderDaemon(['listOrder']);
    try {
      await assert.rejects(other.client.call(MemoryList, { agentId: 'a', order: 'newest', since: '2026-01-01T00:00:00Z' }), (e: unknown) => isClientError(e, ClientErrorCodes.Unsupported) && e.capability === 'filters');
      assert.deepEqual(await other.client.call(MemoryList, { agentId: 'a', order: 'newest', after: ID }), { facts: [] });
      assert.deepEqual(other.server.requests.at(-1)?.params, { agentId: 'a', order: 'newest', after: ID });
    } finally {
      await other.done();
    }
  });

  it('sends them to a daemon that announces them', async () => {
    const { server, client, done } = await olderDaemon(['filters', 'history']);
    try {
      assert.deepEqual(await client.call(MemorySearch, { agentId: 'a', query: 'q', tags: ['t'], since: '2026-01-01T00:00:00Z' }), { facts: [] });
      assert.equal(server.requests.at(-1)?.method, 'memory.search');
      assert.deepEqual(server.requests.at(-1)?.params, { agentId: 'a', query: 'q', tags: ['t'], since: '2026-01-01T00:00:00Z' });
    } finally {
      await done();
    }
  });
});
