// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { cleanEnv, type DaemonHandle } from '@memoryd/test-support';
import { useDaemonSession, useSessionWithoutDaemon } from './helpers/fixture.js';
import { assertFailure, type Session } from './helpers/mcp.js';
import { daemonStatus, rpcOnce } from './helpers/ndjson.js';

const GOOD_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

/** [tool, arguments, field, reason or undefined when only the field is pinned]. */
const BAD_INPUT: Array<[string, Record<string, unknown>, string, string | undefined]> = [
  ['memory_search', {}, 'agent_id', 'is required'],
  ['memory_search', { agent_id: 'A' }, 'query', 'is required'],
  ['memory_search', { agent_id: 'a b', query: 'q' }, 'agent_id', undefined],
  ['memory_search', { agent_id: 'x'.repeat(129), query: 'q' }, 'agent_id', undefined],
  ['memory_search', { agent_id: 'A', query: '' }, 'query', undefined],
  ['memory_search', { agent_id: 'A', query: 'q', limit: 0 }, 'limit', undefined],
  ['memory_search', { agent_id: 'A', query: 'q', limit: 101 }, 'limit', undefined],
  ['memory_search', { agent_id: 'A', query: 'q', limit: null }, 'limit', 'must not be null (omit an optional field instead)'],
  ['memory_add', { agent_id: 'A' }, 'content', 'is required'],
  ['memory_add', { agent_id: 'A', content: '   ' }, 'content', undefined],
  ['memory_add', { agent_id: 'A', content: 'é'.repeat(8193) }, 'content', undefined],
  ['memory_add', { agent_id: 'A', content: 'c', tags: ['ok', ' '] }, 'tags[1]', undefined],
  ['memory_add', { agent_id: 'A', content: 'c', tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, 'tags', undefined],
  ['memory_add', { agent_id: null, content: 'c' }, 'agent_id', 'must not be null (omit an optional field instead)'],
  ['checkpoint_save', { agent_id: 'A' }, 'state', 'is required'],
  ['checkpoint_save', { agent_id: 'A', state: [1] }, 'state', undefined],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: -1 }, 'message_count', undefined],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: 1.5 }, 'message_count', undefined],
  ['checkpoint_resume', { agent_id: 'A', checkpoint_id: 'nope' }, 'checkpoint_id', undefined],
  ['checkpoint_resume', { agent_id: 'A', on_missing: 'ignore' }, 'on_missing', 'must be one of "error", "empty"'],
  ['memory_reflect', { agent_id: 'A', fact_id: GOOD_ID }, 'action', 'is required'],
  ['memory_reflect', { agent_id: 'A', action: 'merge', fact_id: GOOD_ID }, 'action', 'must be one of "update", "delete"'],
  ['memory_reflect', { agent_id: 'A', action: 'delete' }, 'fact_id', 'is required'],
  ['memory_reflect', { agent_id: 'A', action: 'update', fact_id: GOOD_ID }, 'content', 'is required when action is "update" without tags'],
  ['memory_reflect', { agent_id: 'A', action: 'update', fact_id: GOOD_ID, tags: [''] }, 'tags[0]', undefined],
];

describe('failures against a real daemon', () => {
  let daemon: DaemonHandle;
  let s: Session;
  useDaemonSession((started) => ({ daemon, s } = started));

  test('bad input: `invalid arguments: FIELD: REASON` with the tool\'s own param name, and nothing stored', async () => {
    for (const [name, args, field, reason] of BAD_INPUT) {
      const text = assertFailure(await s.call(name, args));
      const label = `${name} ${JSON.stringify(args).slice(0, 80)}`;
      if (reason !== undefined) assert.equal(text, `invalid arguments: ${field}: ${reason}`, label);
      else {
        assert.ok(text.startsWith(`invalid arguments: ${field}: `), `${label}: ${text}`);
        assert.ok(text.length > `invalid arguments: ${field}: `.length, `${label}: a reason`);
      }
    }
    const status = await daemonStatus(daemon.socket);
    assert.equal(status.facts + status.checkpoints, 0, 'no bad input reached the store');
  });

  test('an unknown tool is a text-only error', async () => {
    const text = assertFailure(await s.call('memory_forget', { agent_id: 'A' }));
    assert.match(text, /memory_forget/);
  });

  test('a daemon error: `TOOL error: CAUSE` with the daemon\'s message', async () => {
    const params = { agentId: 'A', action: 'delete', factId: GOOD_ID };
    const direct = await rpcOnce(daemon.socket, 'memory.reflect', params);
    assert.equal(direct.error?.code, -32004);
    const text = assertFailure(await s.call('memory_reflect', { agent_id: 'A', action: 'delete', fact_id: GOOD_ID }));
    assert.equal(text, `memory reflect error: ${direct.error!.message}`);
  });
});

describe('no daemon and no autostart', () => {
  let s: Session;
  let socket: string;
  useSessionWithoutDaemon((started) => ({ s, socket } = started), 'absent.sock');

  test('every tool answers the client\'s own `memory daemon unavailable at SOCKET: CAUSE`', async () => {
    const probe = new DaemonClient({ socket, autostart: false, env: cleanEnv() });
    let expected = '';
    await probe.connect().then(
      () => assert.fail('a daemon answered'),
      (err: Error) => (expected = err.message),
    );
    await probe.close();
    assert.ok(expected.startsWith(`memory daemon unavailable at ${socket}: `), expected);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['memory_search', { agent_id: 'A', query: 'q' }],
      ['memory_add', { agent_id: 'A', content: 'c' }],
      ['checkpoint_save', { agent_id: 'A', state: {} }],
      ['checkpoint_resume', { agent_id: 'A', on_missing: 'empty' }],
      ['memory_reflect', { agent_id: 'A', action: 'delete', fact_id: GOOD_ID }],
    ];
    for (const [name, args] of calls) assert.equal(assertFailure(await s.call(name, args)), expected, name);
  });
});
