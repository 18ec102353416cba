// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { useSessionWithoutDaemon } from './helpers/fixture.js';
import type { Session } from './helpers/mcp.js';

// The published schemas as a client receives them from tools/list. No
// daemon runs here: listing must not need one (the shim connects lazily).

const NAMES = ['memory_search', 'memory_add', 'checkpoint_save', 'checkpoint_resume', 'memory_reflect'];

/** Every `$schema`, `format` and undescribed property anywhere in a schema. */
function problems(schema: unknown, path = '#'): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const out: string[] = [];
  const node = schema as Record<string, unknown>;
  if ('$schema' in node) out.push(`${path}: $schema`);
  if ('format' in node) out.push(`${path}: format`);
  const props = node['properties'];
  if (props !== undefined && props !== null && typeof props === 'object') {
    for (const [k, v] of Object.entries(props)) {
      const d = (v as { description?: unknown }).description;
      if (typeof d !== 'string' || d.trim() === '') out.push(`${path}/properties/${k}: no description`);
    }
  }
  for (const [k, v] of Object.entries(node)) {
    if (Array.isArray(v)) v.forEach((item, i) => out.push(...problems(item, `${path}/${k}/${i}`)));
    else if (typeof v === 'object') out.push(...problems(v, `${path}/${k}`));
  }
  return out;
}

describe('tools/list', () => {
  let s: Session;
  let socket: string;
  useSessionWithoutDaemon((started) => ({ s, socket } = started), 'none.sock');

  const tool = (name: string): Tool => {
    const t = s.tools.find((x) => x.name === name);
    assert.ok(t, `tools/list lacks ${name}`);
    return t;
  };

  test('lists the five tools without a daemon', () => {
    assert.deepEqual(s.tools.map((t) => t.name), NAMES);
    assert.equal(existsSync(socket), false, 'listing tools touched no socket');
  });

  test('every schema: root type object, no $schema, no format, every key described', () => {
    for (const t of s.tools) {
      assert.ok(t.description && t.description.length > 80, `${t.name}: a description that says when to use it and what comes back`);
      for (const [which, schema] of [['inputSchema', t.inputSchema], ['outputSchema', t.outputSchema]] as const) {
        assert.ok(schema, `${t.name} has ${which}`);
        assert.equal(schema.type, 'object', `${t.name} ${which} root type`);
        assert.deepEqual(problems(schema), [], `${t.name} ${which}`);
      }
    }
  });

  test('inputs are snake_case with the required keys docs/api-stability.md gives', () => {
    const expected: Record<string, { keys: string[]; required: string[] }> = {
      memory_search: { keys: ['agent_id', 'query', 'limit', 'tags', 'since', 'until'], required: ['agent_id', 'query'] },
      memory_add: { keys: ['agent_id', 'content', 'tags', 'context'], required: ['agent_id', 'content'] },
      checkpoint_save: { keys: ['agent_id', 'state', 'message_count'], required: ['agent_id', 'state'] },
      checkpoint_resume: { keys: ['agent_id', 'checkpoint_id', 'on_missing'], required: ['agent_id'] },
      memory_reflect: { keys: ['agent_id', 'action', 'fact_id', 'content', 'tags'], required: ['agent_id', 'action', 'fact_id'] },
    };
    for (const [name, e] of Object.entries(expected)) {
      const schema = tool(name).inputSchema;
      assert.deepEqual(Object.keys(schema.properties ?? {}), e.keys, name);
      assert.deepEqual(schema.required, e.required, name);
    }
  });

  test('checkpoint_resume output is {type: object, anyOf: [checkpoint, absence]}', () => {
    const out = tool('checkpoint_resume').outputSchema as Record<string, unknown>;
    const anyOf = out['anyOf'] as Array<{ type: string; properties: Record<string, unknown>; required: string[] }>;
    assert.equal(anyOf.length, 2);
    assert.deepEqual(Object.keys(anyOf[0]!.properties), ['id', 'created_at', 'state', 'message_count']);
    assert.deepEqual(anyOf[0]!.required, ['id', 'created_at']);
    assert.deepEqual(Object.keys(anyOf[1]!.properties), ['agent_id', 'found']);
    assert.deepEqual(anyOf[1]!.required, ['agent_id', 'found']);
  });

  test('output schemas accept what docs/api-stability.md allows and reject what it does not', () => {
    const id = '01JZ0000000000000000000000';
    const at = '2026-12-02T11:29:00.000Z';
    const good: Array<[string, unknown]> = [
      ['memory_search', { agent_id: 'A', query: 'q', count: 0, facts: [] }],
      ['memory_search', { agent_id: 'A', query: 'q', count: 1, facts: [{ id, content: 'c', created_at: at, score: 1.5, tags: ['t'] }] }],
      ['memory_add', { agent_id: 'A', stored: true, fact_id: id }],
      ['memory_add', { agent_id: 'A', stored: true, fact_id: id, duplicate: true }],
      ['checkpoint_save', { agent_id: 'A', checkpoint_id: id, created_at: at }],
      ['checkpoint_resume', { id, created_at: at, state: { a: 1 }, message_count: 3 }],
      ['checkpoint_resume', { agent_id: 'A', found: false }],
      ['memory_reflect', { action: 'update', agent: 'A', ok: true, fact_id: id, superseded_id: id }],
      ['memory_reflect', { action: 'delete', agent: 'A', ok: true, fact_id: id }],
    ];
    for (const [name, value] of good) s.assertValid(name, value);
    const bad: Array<[string, unknown]> = [
      ['memory_search', { agent_id: 'A', query: 'q', count: 0 }],
      ['memory_search', { agent_id: 'A', query: 'q', count: 1, facts: [{ id, content: 'c', created_at: 'yesterday', score: 1 }] }],
      ['memory_add', { agent_id: 'A', stored: true, fact_id: id, duplicate: false }],
      ['memory_add', { agent_id: 'A', stored: true, fact_id: id, duplicate: null }],
      ['checkpoint_resume', { agent_id: 'A', found: true }],
      ['checkpoint_resume', { id, created_at: at, message_count: null }],
      ['memory_reflect', { action: 'merge', agent: 'A', ok: true, fact_id: id }],
      ['memory_reflect', { action: 'update', agent: 'A', ok: true }],
      ['memory_reflect', { action: 'update', agent: 'A', ok: true, fact_id: id }],
      ['memory_reflect', { action: 'delete', agent: 'A', ok: true }],
    ];
    for (const [name, value] of bad) {
      assert.throws(() => s.assertValid(name, value), /fails its outputSchema/, `${name} accepted ${JSON.stringify(value)}`);
    }
  });
});
