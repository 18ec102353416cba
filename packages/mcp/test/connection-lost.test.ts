// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { cleanupAll, tempDir, trackCloser } from '@memoryd/test-support';
import { type FakeDaemon, type Received, type Reply, startFakeDaemon } from './helpers/fake-daemon.js';
import { assertFailure, assertSuccess, inProcess, type Session } from './helpers/mcp.js';

// A daemon that dies in the middle of a call (a restart, a crash) drops the
// connection unanswered. The client never retries; the shim runs an
// idempotent tool once more (it reconnects), and reports the failure of a
// tool that must not run twice.

const AT = '2026-12-02T11:29:00.000Z';
const ID = '01JZ0000000000000000000000';

/** Drops the connection at the first request of each method, then answers. */
function dropFirst(req: Received, index: number): Reply {
  if (index === 0) return 'drop';
  switch (req.method) {
    case 'memory.search':
      return { result: { facts: [{ id: ID, content: 'still here', createdAt: AT, score: 1 }] } };
    case 'memory.add':
      return { result: { factId: ID, createdAt: AT } };
    case 'checkpoint.resume':
      return { result: { checkpoint: { id: ID, createdAt: AT, state: { a: 1 } } } };
    default:
      return { result: { checkpointId: ID, createdAt: AT, action: 'delete', factId: ID } };
  }
}

describe('the daemon drops the connection during a call', () => {
  let fake: FakeDaemon;
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  after(cleanupAll);

  const setup = async () => {
    const f = await startFakeDaemon(join(tempDir(), 'f.sock'), ['reportNotFound'], dropFirst);
    trackCloser(() => f.close());
    fake = f;
    s = await inProcess({ socket: fake.socket });
    return s;
  };
  const calls = (method: string) => fake.received.filter((r) => r.method === method).length;

  test('idempotent tools (search, add, resume) run once more and succeed', async () => {
    const s = await setup();
    const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'A', query: 'here' }));
    assert.equal(found.text, `Found 1 fact for agent "A" matching "here":\n1. [${ID}] still here`);
    assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'A', content: 'c' }));
    assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: 'A' }));
    assert.deepEqual([calls('memory.search'), calls('memory.add'), calls('checkpoint.resume')], [2, 2, 2]);
    assert.equal(calls('daemon.hello'), 4, 'one connection, then one more after each drop');
  });

  test('checkpoint_save and memory_reflect report the failure and are not sent twice', async () => {
    const s = await setup();
    const save = assertFailure(await s.call('checkpoint_save', { agent_id: 'A', state: {} }));
    assert.match(save, /^checkpoint save error: ./);
    const reflect = assertFailure(await s.call('memory_reflect', { agent_id: 'A', action: 'delete', fact_id: ID }));
    assert.match(reflect, /^memory reflect error: ./);
    assert.deepEqual([calls('checkpoint.save'), calls('memory.reflect')], [1, 1]);
    // The next call reconnects.
    assertSuccess(s, 'checkpoint_save', await s.call('checkpoint_save', { agent_id: 'A', state: {} }));
  });
});
