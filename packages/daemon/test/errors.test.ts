// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Errors": -32601 for unknown methods (including names that
// exist on every JS object), -32602 with data {field, reason} for every
// method given params that fail its schema, -32004 for absence. The same
// contract is run for every method, and a second connection keeps being
// served throughout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Methods } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { assertError, assertInvalidParams, assertServing, type RpcClient } from './helpers/rpc.js';
import { ABSENT_ID } from './helpers/shapes.js';

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

describe('method_not_found (-32601)', () => {
  const names = ['memory.nope', 'Memory.add', 'memory.add ', 'daemon', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'rpc.discover'];
  for (const method of names) {
    it(`answers ${JSON.stringify(method)} with -32601 and its id`, async () => {
      const r = await shared.client.request(`m-${method}`, method, {});
      assertError(r, -32601, `m-${method}`);
      await assertServing(watcher);
    });
  }
});

describe('invalid_params (-32602), for every method', () => {
  for (const m of Methods) {
    if (m.method === 'daemon.shutdown') continue; // checked below without stopping the shared daemon
    it(`${m.method}: positional (array) params are -32602 on "params"`, async () => {
      const r = await shared.client.request(`p-${m.method}`, m.method, ['positional']);
      const e = assertError(r, -32602, `p-${m.method}`);
      assertInvalidParams(e, 'params');
    });
  }

  it('daemon.shutdown with array params is -32602 and does not stop the daemon', async () => {
    assertInvalidParams(await shared.client.fail('daemon.shutdown', [true]), 'params');
    await assertServing(shared.client);
  });

  const missingAgent = ['memory.add', 'memory.search', 'memory.list', 'memory.reflect', 'checkpoint.save', 'checkpoint.resume', 'checkpoint.list'];
  for (const method of missingAgent) {
    it(`${method}: empty params are -32602 on agentId`, async () => {
      assertInvalidParams(await shared.client.fail(method, {}), 'agentId');
      assertInvalidParams(await shared.client.fail(method), 'agentId');
    });
  }

  it('names the first failing field with a path and says why', async () => {
    assertInvalidParams(await shared.client.fail('memory.add', { agentId: 'e', content: 'ok', tags: ['a', 'b', 'c', 3] }), 'tags[3]');
    assertInvalidParams(await shared.client.fail('memory.add', { agentId: 'e' }), 'content');
    assertInvalidParams(await shared.client.fail('memory.reflect', { agentId: 'e', action: 'delete' }), 'factId');
    assertInvalidParams(await shared.client.fail('checkpoint.resume', { agentId: 'e', reportNotFound: 'yes' }), 'reportNotFound');
    assertInvalidParams(await shared.client.fail('admin.import', { records: 'nope' }), 'records');
  });

  it('keeps the request id on -32602', async () => {
    assertError(await shared.client.request('keep-me', 'memory.add', { agentId: '' }), -32602, 'keep-me');
    assertError(await shared.client.request(0, 'memory.add', {}), -32602, 0);
    assertError(await shared.client.request(-1.5, 'memory.add', {}), -32602, -1.5);
  });
});

describe('not_found (-32004)', () => {
  it('a missing checkpoint and a missing fact', async () => {
    assertError(await shared.client.call('checkpoint.resume', { agentId: 'e', checkpointId: ABSENT_ID }), -32004);
    assertError(await shared.client.call('memory.reflect', { agentId: 'e', action: 'delete', factId: ABSENT_ID }), -32004);
    await assertServing(watcher);
  });
});

describe('errors leave the connection usable', () => {
  it('a burst of mixed failures then a success on the same connection', async () => {
    const c = shared.client;
    const rs = await Promise.all([
      c.call('no.such'),
      c.call('memory.add', {}),
      c.call('checkpoint.resume', { agentId: 'e' }),
      c.call('memory.add', { agentId: 'e', content: 'still fine' }),
    ]);
    assert.deepEqual(rs.map((r) => r.error?.code ?? 'ok'), [-32601, -32602, -32004, 'ok']);
    await assertServing(c);
  });
});
