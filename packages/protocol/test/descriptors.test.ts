// The method table, error codes, version and the published JSON Schemas:
// names and numbers are docs/protocol.md's literals, and the schemas are ones
// strict clients accept (no `$schema`, no `format`, objects at the root).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AdminExport,
  AdminImport,
  AgentList,
  Capabilities,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  DaemonHello,
  DaemonShutdown,
  DaemonStatus,
  ErrorCodes,
  ErrorNames,
  MemoryAdd,
  MemoryHistory,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  MemoryTags,
  type MethodName,
  Methods,
  PROTOCOL_VERSION,
} from '@memoryd/protocol';

/** The methods of docs/protocol.md "Methods", in its order. */
const DOCUMENTED_METHODS = [
  'daemon.hello',
  'daemon.status',
  'memory.add',
  'memory.search',
  'memory.list',
  'memory.reflect',
  'memory.history',
  'memory.tags',
  'checkpoint.save',
  'checkpoint.resume',
  'checkpoint.list',
  'agent.list',
  'admin.export',
  'admin.import',
  'admin.reembed',
  'daemon.shutdown',
];

// Compile-time pins: each descriptor's name is a literal type, not string.
const literalNames: Record<MethodName, true> = {
  'daemon.hello': true,
  'daemon.status': true,
  'memory.add': true,
  'memory.search': true,
  'memory.list': true,
  'memory.reflect': true,
  'memory.history': true,
  'memory.tags': true,
  'checkpoint.save': true,
  'checkpoint.resume': true,
  'checkpoint.list': true,
  'agent.list': true,
  'admin.export': true,
  'admin.import': true,
  'admin.reembed': true,
  'daemon.shutdown': true,
};
const resumeName: 'checkpoint.resume' = CheckpointResume.method;

describe('method descriptors', () => {
  it('each exported descriptor carries docs/protocol.md\'s literal name', () => {
    const byExport: Array<[{ method: string }, string]> = [
      [DaemonHello, 'daemon.hello'],
      [DaemonStatus, 'daemon.status'],
      [MemoryAdd, 'memory.add'],
      [MemorySearch, 'memory.search'],
      [MemoryList, 'memory.list'],
      [MemoryReflect, 'memory.reflect'],
      [MemoryHistory, 'memory.history'],
      [MemoryTags, 'memory.tags'],
      [CheckpointSave, 'checkpoint.save'],
      [CheckpointResume, 'checkpoint.resume'],
      [CheckpointList, 'checkpoint.list'],
      [AgentList, 'agent.list'],
      [AdminExport, 'admin.export'],
      [AdminImport, 'admin.import'],
      [DaemonShutdown, 'daemon.shutdown'],
    ];
    for (const [descriptor, name] of byExport) assert.equal(descriptor.method, name);
    assert.equal(resumeName, 'checkpoint.resume');
    assert.deepEqual(Object.keys(literalNames).sort(), [...DOCUMENTED_METHODS].sort());
  });

  it('Methods lists exactly those 16, in docs/protocol.md\'s order, each once', () => {
    assert.deepEqual(
      Methods.map((m) => m.method),
      DOCUMENTED_METHODS,
    );
    assert.equal(new Set(Methods).size, 16);
  });

  it('every descriptor has params, result and a one-line summary, and is frozen', () => {
    for (const m of Methods) {
      assert.equal(typeof m.params, 'object', m.method);
      assert.equal(typeof m.result, 'object', m.method);
      assert.match(m.summary, /^\S[^\n]*$/, m.method);
      assert.ok(Object.isFrozen(m), m.method);
    }
  });
});

describe('error codes, version and capabilities', () => {
  it('ErrorCodes are docs/protocol.md\'s table', () => {
    const table: Array<[number, string]> = [
      [-32700, 'parse_error'],
      [-32600, 'invalid_request'],
      [-32601, 'method_not_found'],
      [-32602, 'invalid_params'],
      [-32004, 'not_found'],
      [-32010, 'storage_error'],
      [-32011, 'overloaded'],
      [-32603, 'internal_error'],
    ];
    assert.deepEqual(
      Object.values(ErrorCodes).map((code) => [code, ErrorNames[code]]),
      table,
    );
    assert.deepEqual(Object.keys(ErrorNames).length, table.length);
  });

  it('protocol version 1 announces reportNotFound', () => {
    assert.equal(PROTOCOL_VERSION, 1);
    assert.ok(Object.values(Capabilities).includes('reportNotFound'));
  });
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Every keyword name used anywhere in a JSON Schema. Property names (the
 * keys of `properties` and `patternProperties`) are data, not keywords.
 */
function keywords(schema: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) keywords(item, out);
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      out.add(key);
      if ((key === 'properties' || key === 'patternProperties') && value !== null && typeof value === 'object') {
        for (const sub of Object.values(value)) keywords(sub, out);
      } else {
        keywords(value, out);
      }
    }
  }
  return out;
}

describe('published JSON Schemas', () => {
  const published = Methods.flatMap((m) => [
    { name: `${m.method} params`, json: JSON.parse(JSON.stringify(m.params)) as { [key: string]: Json } },
    { name: `${m.method} result`, json: JSON.parse(JSON.stringify(m.result)) as { [key: string]: Json } },
  ]);

  it('carry no $schema and no format keyword', () => {
    for (const { name, json } of published) {
      const used = keywords(json);
      assert.ok(!used.has('$schema'), `${name} has $schema`);
      assert.ok(!used.has('format'), `${name} has format`);
    }
  });

  it('keyword finder sees nested keywords (so the check above can fail)', () => {
    const used = keywords({ type: 'object', properties: { format: { type: 'string', format: 'date-time' } } });
    assert.ok(used.has('format'));
    assert.ok(!keywords({ type: 'object', properties: { format: { type: 'string' } } }).has('format'));
  });

  it('have type "object" at the root; checkpoint.resume\'s result is anyOf objects', () => {
    for (const { name, json } of published) {
      if (name === 'checkpoint.resume result') {
        assert.ok(Array.isArray(json['anyOf']), name);
        const branches = json['anyOf'] as Array<{ [key: string]: Json }>;
        assert.equal(branches.length, 2);
        for (const branch of branches) assert.equal(branch['type'], 'object', name);
        assert.deepEqual(
          branches.map((b) => b['required']),
          [['checkpoint'], ['notFound']],
        );
      } else {
        assert.equal(json['type'], 'object', name);
        assert.equal(json['anyOf'], undefined, name);
      }
    }
  });

  it('describe custom-checked strings with the standard keywords of the rule', () => {
    // JSON Schema counts maxLength in characters (code points): a tag's 64
    // is exact, and content's 16,384 accepts every string of 16,384 bytes.
    const add = JSON.parse(JSON.stringify(MemoryAdd.params)) as {
      properties: { content: { maxLength: number }; tags: { maxItems: number; items: { maxLength: number } } };
    };
    assert.equal(add.properties.content.maxLength, 16_384);
    assert.equal(add.properties.tags.items.maxLength, 64);
    assert.equal(add.properties.tags.maxItems, 32);
  });
});
