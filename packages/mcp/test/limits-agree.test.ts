// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// Issue 13: each tool's published inputSchema and its handler's limits
// agree. Every limit's edge values (just inside and just past it) go through
// a strict validator (Ajv 2020-12, strict) compiled from the inputSchema the
// client received, and through the shim against a real daemon: both accept,
// or both refuse. (Content and query are limited in UTF-8 bytes, which JSON
// Schema cannot count: their maxLength, in characters, is exact for ASCII
// and never stricter than the rule, and their descriptions say the rule.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import { Limits } from '@memoryd/protocol';
import { useDaemonSession } from './helpers/fixture.js';
import type { Session } from './helpers/mcp.js';

const ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const astral = (n: number) => '😀'.repeat(n);
const nested = (depth: number): Record<string, unknown> => {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) v = { v };
  return v;
};

/** [tool, arguments, what the edge is, whether the limit admits it]. */
const EDGES: Array<[string, Record<string, unknown>, string, boolean]> = [
  ['memory_add', { agent_id: 'x'.repeat(Limits.agentIdMaxLength), content: 'c' }, 'agent_id of 128', true],
  ['memory_add', { agent_id: 'x'.repeat(Limits.agentIdMaxLength + 1), content: 'c' }, 'agent_id of 129', false],
  ['memory_add', { agent_id: 'a b', content: 'c' }, 'agent_id with a space', false],
  ['memory_add', { agent_id: '', content: 'c' }, 'empty agent_id', false],
  ['memory_add', { agent_id: 'A', content: 'c'.repeat(Limits.contentMaxBytes) }, 'content of 16384 bytes', true],
  ['memory_add', { agent_id: 'A', content: 'c'.repeat(Limits.contentMaxBytes + 1) }, 'content of 16385 bytes', false],
  ['memory_add', { agent_id: 'A', content: ' \n ' }, 'blank content', false],
  ['memory_add', { agent_id: 'A', content: 'tags', tags: Array.from({ length: Limits.tagsMaxItems }, (_, i) => `t${i}`) }, '32 tags', true],
  ['memory_add', { agent_id: 'A', content: 'tags', tags: Array.from({ length: Limits.tagsMaxItems + 1 }, (_, i) => `t${i}`) }, '33 tags', false],
  ['memory_add', { agent_id: 'A', content: 'tag', tags: ['t'.repeat(Limits.tagMaxCodePoints)] }, 'a tag of 64 ASCII characters', true],
  ['memory_add', { agent_id: 'A', content: 'tag', tags: [astral(Limits.tagMaxCodePoints)] }, 'a tag of 64 astral characters', true],
  ['memory_add', { agent_id: 'A', content: 'tag', tags: ['t'.repeat(Limits.tagMaxCodePoints + 1)] }, 'a tag of 65 ASCII characters', false],
  ['memory_add', { agent_id: 'A', content: 'tag', tags: [astral(Limits.tagMaxCodePoints + 1)] }, 'a tag of 65 astral characters', false],
  ['memory_add', { agent_id: 'A', content: 'tag', tags: ['  '] }, 'a blank tag', false],
  ['memory_search', { agent_id: 'A', query: 'q'.repeat(Limits.queryMaxBytes) }, 'query of 1024 bytes', true],
  ['memory_search', { agent_id: 'A', query: 'q'.repeat(Limits.queryMaxBytes + 1) }, 'query of 1025 bytes', false],
  ['memory_search', { agent_id: 'A', query: '' }, 'empty query', false],
  ['memory_search', { agent_id: 'A', query: 'q', limit: 1 }, 'limit 1', true],
  ['memory_search', { agent_id: 'A', query: 'q', limit: Limits.limitMax }, 'limit 100', true],
  ['memory_search', { agent_id: 'A', query: 'q', limit: 0 }, 'limit 0', false],
  ['memory_search', { agent_id: 'A', query: 'q', limit: Limits.limitMax + 1 }, 'limit 101', false],
  ['memory_search', { agent_id: 'A', query: 'q', limit: 1.5 }, 'limit 1.5', false],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: 0 }, 'message_count 0', true],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: Limits.messageCountMax }, 'message_count 2147483647', true],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: -1 }, 'message_count -1', false],
  ['checkpoint_save', { agent_id: 'A', state: {}, message_count: Limits.messageCountMax + 1 }, 'message_count 2147483648', false],
  ['checkpoint_save', { agent_id: 'A', state: [] }, 'an array as state', false],
  ['checkpoint_resume', { agent_id: 'A', checkpoint_id: ID, on_missing: 'empty' }, 'a ULID checkpoint_id', true],
  ['checkpoint_resume', { agent_id: 'A', checkpoint_id: 'not-an-id' }, 'a checkpoint_id that is not a ULID', false],
  ['checkpoint_resume', { agent_id: 'A', on_missing: 'ignore' }, 'on_missing "ignore"', false],
  ['memory_reflect', { agent_id: 'A', action: 'merge', fact_id: ID }, 'action "merge"', false],
  ['memory_reflect', { agent_id: 'A', action: 'delete', fact_id: 'x' }, 'a fact_id that is not a ULID', false],
];

/** State depth is checked by the handler alone: JSON Schema has no keyword for it (the description says it). */
const HANDLER_ONLY: Array<[string, Record<string, unknown>, string, boolean]> = [
  ['checkpoint_save', { agent_id: 'A', state: nested(Limits.stateMaxDepth) }, 'state nested 64 levels', true],
  ['checkpoint_save', { agent_id: 'A', state: nested(Limits.stateMaxDepth + 1) }, 'state nested 65 levels', false],
];

/** Whether the shim took the arguments: anything but `invalid arguments: …`. */
async function shimAdmits(s: Session, name: string, args: Record<string, unknown>): Promise<boolean> {
  const r = await s.call(name, args);
  const text = (r.content[0] as { text?: string } | undefined)?.text ?? '';
  return !(r.isError === true && text.startsWith('invalid arguments: '));
}

describe('published input schemas and the handlers agree at every limit', () => {
  let s: Session;
  useDaemonSession((started) => ({ s } = started));

  test('each edge value: a strict validator of the inputSchema and the shim both accept it or both refuse it', async () => {
    const ajv = new Ajv2020.default({ strict: true, allErrors: true });
    const validators = new Map(s.tools.map((t) => [t.name, ajv.compile(t.inputSchema)]));
    for (const [name, args, edge, admitted] of EDGES) {
      assert.equal(validators.get(name)!(args), admitted, `${name} inputSchema, ${edge}`);
      assert.equal(await shimAdmits(s, name, args), admitted, `${name} shim, ${edge}`);
    }
    for (const [name, args, edge, admitted] of HANDLER_ONLY) {
      assert.equal(validators.get(name)!(args), true, `${name} inputSchema admits ${edge} (no keyword for depth)`);
      assert.equal(await shimAdmits(s, name, args), admitted, `${name} shim, ${edge}`);
    }
  });
});
