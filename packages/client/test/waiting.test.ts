// A client waiting for an answer sleeps (ADR 0029: no process memoryd
// ships spins while it waits). Read from this process's
// CPU time: the fake daemon in it does nothing while it holds an answer,
// so what the process burns is the client.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DaemonClient } from '@memoryd/client';
import { MemorySearch } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, tempDir, withTimeout } from '@memoryd/test-support';
import { answerHello, type FakeRequest, fakeServer } from './helpers/fake-server.js';

after(cleanupAll);

/** User plus system CPU time this process used while `during` ran, in ms. */
async function cpuWhile(during: Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await during;
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * A fake daemon that answers memory.search only when told to (`release`),
 * or at once while `hold` is (or returns) false, and a client of it; both
 * closed by `done`.
 */
async function holdingServer(hold: boolean | (() => boolean) = true) {
  const socket = join(tempDir(), 'poll.sock');
  const held: Array<() => void> = [];
  const server = await fakeServer(socket, (req: FakeRequest, _s, reply) => {
    if (answerHello(req, reply)) return;
    if (!(typeof hold === 'function' ? hold() : hold)) reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } });
    else held.push(() => reply({ jsonrpc: '2.0', id: req.id, result: { facts: [] } }));
  });
  const client = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
  await withTimeout(client.connect(), 10_000, 'connect');
  const search = () => withTimeout(client.call(MemorySearch, { agentId: 'poll', query: 'x' }), 10_000, 'search');
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  const done = async () => {
    release();
    await client.close();
    await server.close();
  };
  return { client, search, release, done };
}

describe('a client waiting for its answer', () => {
  it('sleeps', async () => {
    const { search, release, done } = await holdingServer();
    try {
      const waiting = search();
      // Half a second with the answer held: a spinning client would burn most of it.
      const used = await cpuWhile(sleep(500));
      release();
      await waiting;
      assert.ok(used < 100, `CPU while the answer was held for 500 ms: ${used} ms`);
    } finally {
      await done();
    }
  });
});
