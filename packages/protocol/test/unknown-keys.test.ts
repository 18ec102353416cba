// Pins that unknown params keys are accepted. Version skew depends on it
// (docs/protocol.md "Conventions" and "Typed absence"): a new client sends `reportNotFound` to an old daemon,
// whose checkpoint.resume schema does not know that key; the call must
// still validate (the daemon then ignores the key and answers -32004).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { CheckpointResume, type MethodDescriptor, Methods, validate, validateParams } from '@memoryd/protocol';
import { TIME, ULID_A } from './helpers/cases.js';

/** Minimal valid params of every method, keyed by method name. */
const minimal: Record<string, Record<string, unknown>> = {
  'daemon.hello': {},
  'daemon.status': {},
  'memory.add': { agentId: 'a', content: 'x' },
  'memory.search': { agentId: 'a', query: 'q' },
  'memory.list': { agentId: 'a' },
  'memory.reflect': { agentId: 'a', action: 'delete', factId: ULID_A },
  'memory.history': { agentId: 'a', factId: ULID_A },
  'memory.tags': { agentId: 'a' },
  'checkpoint.save': { agentId: 'a', state: {} },
  'checkpoint.resume': { agentId: 'a' },
  'checkpoint.list': { agentId: 'a' },
  'agent.list': {},
  'admin.export': {},
  'admin.import': { records: [{ type: 'fact', agentId: 'a', id: ULID_A, content: 'x', createdAt: TIME }] },
  'admin.reembed': {},
  'daemon.shutdown': {},
};

const unknown = {
  someFutureParam: true,
  nested: { deep: [1, 2, { x: null }] },
  nothing: null,
  'key with spaces': 'ok',
};

describe('unknown params keys are accepted', () => {
  it('covers every method', () => {
    assert.deepEqual(Object.keys(minimal).sort(), Methods.map((m) => m.method).sort());
  });

  for (const descriptor of Methods as readonly MethodDescriptor[]) {
    it(`${descriptor.method} accepts params with extra keys`, () => {
      const base = minimal[descriptor.method];
      assert.ok(base !== undefined);
      // The base must be valid on its own, or this test would prove nothing.
      assert.equal(validateParams(descriptor, base).ok, true);
      const result = validateParams(descriptor, { ...base, ...unknown });
      assert.equal(result.ok, true, JSON.stringify(result));
    });
  }

  it('an old checkpoint.resume schema (no reportNotFound) accepts a new client\'s params', () => {
    // The protocol 1 schema minus the key, as a daemon older than it has it.
    const oldParams = Type.Omit(CheckpointResume.params, ['reportNotFound']);
    assert.deepEqual(Object.keys(oldParams.properties).sort(), ['agentId', 'checkpointId']);
    const sent = { agentId: 'a', reportNotFound: true };
    const result = validate(oldParams, sent);
    assert.equal(result.ok, true);
    // And the new schema, of course, knows the key.
    assert.equal(validateParams(CheckpointResume, sent).ok, true);
  });

  it('known keys are still checked when unknown ones are present', () => {
    const result = validateParams(CheckpointResume, { agentId: 'a', reportNotFound: 'yes', extra: 1 });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.error.field, 'reportNotFound');
  });

  it('no params schema forbids additional properties', () => {
    for (const descriptor of Methods) {
      const schema = JSON.parse(JSON.stringify(descriptor.params)) as { additionalProperties?: unknown };
      assert.notEqual(schema.additionalProperties, false, descriptor.method);
    }
  });
});
