// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { cleanupAll, tempDir, trackCloser } from '@memoryd/test-support';
import { assertFailure, inProcess, overStdio, type Session } from './helpers/mcp.js';
import { type FakeDaemon, oldNotFoundMessage, startFakeDaemon, startOldDaemon } from './helpers/fake-daemon.js';

// docs/api-stability.md, "Version skew": a new shim facing a daemon without
// `reportNotFound` gets -32004 for a missing checkpoint. That is an
// operational failure with a hint to restart the daemon, never absence,
// whatever on_missing says.

const HINT = /^hint: .*restart the memory daemon with the updated memoryd binary/;

async function fixture(capabilities: string[] = []): Promise<FakeDaemon> {
  const old = await startOldDaemon(join(tempDir(), 'old.sock'), capabilities);
  trackCloser(() => old.close());
  return old;
}

function assertSkewError(text: string, agentId: string): void {
  const lines = text.split('\n');
  assert.equal(lines.length, 2, text);
  assert.equal(lines[0], `checkpoint resume error: ${oldNotFoundMessage(agentId)}`);
  assert.match(lines[1]!, HINT);
}

describe('a new shim and an old daemon', () => {
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  after(cleanupAll);

  test('in process: a missing checkpoint is `checkpoint resume error: …` plus the hint, both on_missing values', async () => {
    const old = await fixture();
    s = await inProcess({ socket: old.socket, resumeOnMissing: 'empty' });
    assertSkewError(assertFailure(await s.call('checkpoint_resume', { agent_id: 'A' })), 'A');
    assertSkewError(assertFailure(await s.call('checkpoint_resume', { agent_id: 'B', on_missing: 'empty' })), 'B');
    assertSkewError(assertFailure(await s.call('checkpoint_resume', { agent_id: 'C', on_missing: 'error' })), 'C');
    const resumes = old.received.filter((r) => r.method === 'checkpoint.resume');
    assert.equal(resumes.length, 3);
    for (const r of resumes) assert.equal(r.params['reportNotFound'], true, 'the shim always asks for typed absence');
  });

  test('through the built bin over stdio', async () => {
    const old = await fixture();
    s = await overStdio(['--socket', old.socket, '--no-autostart']);
    assertSkewError(assertFailure(await s.call('checkpoint_resume', { agent_id: 'A', on_missing: 'empty' })), 'A');
  });

  test('a daemon that announces reportNotFound yet answers -32004: still a failure, without the hint', async () => {
    const odd = await fixture(['reportNotFound']);
    s = await inProcess({ socket: odd.socket, resumeOnMissing: 'empty' });
    const text = assertFailure(await s.call('checkpoint_resume', { agent_id: 'A' }));
    assert.equal(text, `checkpoint resume error: ${oldNotFoundMessage('A')}`);
  });

  test('a filtered memory_search to a daemon without `filters` fails, rather than come back unfiltered', async () => {
    const old = await fixture(['reportNotFound']);
    s = await overStdio(['--socket', old.socket, '--no-autostart']);
    const text = assertFailure(await s.call('memory_search', { agent_id: 'A', query: 'q', tags: ['work'] }));
    assert.match(text, /^memory search error: memoryd \S+ at \S+ cannot filter memory\.search by tags, since or until: it does not announce capability "filters"; upgrade memoryd and restart it$/);
    assert.equal(old.received.filter((r) => r.method === 'memory.search').length, 0, 'nothing was sent');
  });
});

describe('a daemon of another protocol version', () => {
  after(cleanupAll);
  const TOOLS: Array<[string, Record<string, unknown>]> = [
    ['memory_search', { agent_id: 'A', query: 'q' }],
    ['memory_add', { agent_id: 'A', content: 'c' }],
    ['checkpoint_save', { agent_id: 'A', state: {} }],
    ['checkpoint_resume', { agent_id: 'A' }],
    ['memory_reflect', { agent_id: 'A', action: 'delete', fact_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
  ];

  for (const version of [0, 99]) {
    test(`protocol ${version}: every tool says so with the restart hint, sends nothing else, and the shim picks up a restarted daemon`, async () => {
      const socket = join(tempDir(), 'other.sock');
      const other = await startFakeDaemon(socket, ['reportNotFound'], () => ({ error: { code: -32601, message: 'method not found' } }), version);
      const s = await overStdio(['--socket', socket, '--no-autostart']);
      try {
        for (const [name, args] of TOOLS) {
          const lines = assertFailure(await s.call(name, args)).split('\n');
          assert.equal(lines[0], `${name.replace(/_/g, ' ')} error: memoryd at ${socket} speaks protocol ${version}, this memoryd-mcp speaks 1`);
          assert.match(lines[1]!, /^hint: restart the memory daemon/);
        }
        assert.deepEqual([...new Set(other.received.map((r) => r.method))], ['daemon.hello'], 'only hello is sent, once per call');
        assert.equal(other.received.length, TOOLS.length);
        // A daemon of this protocol in its place: the next call says hello again and goes through.
        await other.close();
        const same = await startFakeDaemon(socket, ['reportNotFound'], (req) =>
          req.method === 'memory.add' ? { result: { factId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', createdAt: '2026-12-03T12:00:00.000Z' } } : { error: { code: -32601, message: 'no' } },
        );
        trackCloser(() => same.close());
        const r = await s.call('memory_add', { agent_id: 'A', content: 'c' });
        assert.notEqual(r.isError, true, JSON.stringify(r));
      } finally {
        await s.close();
      }
    });
  }
});
