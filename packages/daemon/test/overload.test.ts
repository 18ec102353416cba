// docs/protocol.md "Errors", overloaded (-32011): past the connection cap the
// daemon sends one error response with id null on the new connection and
// closes it; the connections it already has keep working, and a slot freed
// is a slot a newcomer gets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonStatus } from '@memoryd/protocol';
import { waitFor, withTimeout } from '@memoryd/test-support';
import { useDaemon } from './helpers/fixture.js';
import { assertError, assertServing, connect, type RpcClient } from './helpers/rpc.js';

const shared = useDaemon({ args: ['--max-connections', '2'] });

async function connections(c: RpcClient): Promise<number> {
  return (await c.ok(DaemonStatus, {})).connections;
}

describe('overloaded (-32011)', () => {
  it('refuses a third connection with one id-null error line and a close', async () => {
    const first = shared.client;
    // The start-up probe may not be accounted closed yet: wait until this is the only connection.
    await waitFor(async () => (await connections(first)) === 1, 5000, 'one open connection');
    const second = await shared.connect();
    await assertServing(second);
    assert.equal(await connections(first), 2);

    const third = await connect(shared.daemon.socket);
    const m = await third.nextMessage(5000);
    assertError(m, -32011, null);
    await withTimeout(third.closed, 5000, 'the refused connection to close');
    assert.equal(third.pending(), 0, 'exactly one line on the refused connection');

    await assertServing(first);
    await assertServing(second);
    assert.equal(await connections(first), 2, 'the refused connection is not counted');

    // A freed slot is given to the next newcomer.
    second.socket.destroy();
    await waitFor(async () => (await connections(first)) === 1, 5000, 'the closed connection to be released');
    const fourth = await shared.connect();
    await assertServing(fourth);
    fourth.socket.destroy();
  });

  it('refuses without reading: a request sent on a refused connection is not run', async () => {
    const first = shared.client;
    await waitFor(async () => (await connections(first)) === 1, 5000, 'one open connection');
    const second = await shared.connect();
    await assertServing(second);
    const third = await connect(shared.daemon.socket);
    third.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'memory.add', params: { agentId: 'refused', content: 'must not be stored' } }) + '\n');
    assertError(await third.nextMessage(5000), -32011, null);
    await withTimeout(third.closed, 5000, 'the refused connection to close');
    assert.equal(third.pending(), 0);
    const list = await first.call('memory.list', { agentId: 'refused' });
    assert.deepEqual(list.result, { facts: [] });
    second.socket.destroy();
  });
});
