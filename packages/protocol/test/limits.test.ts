// Every limit of docs/protocol.md "Limits", with a case just inside and just
// outside, through the params schemas that enforce them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AdminExport,
  AdminImport,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  DaemonHello,
  Limits,
  MemoryAdd,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  type MethodDescriptor,
} from '@memoryd/protocol';
import { ULID_A, accepts, nested, ofBytes, rejects, stateOfBytes } from './helpers/cases.js';

const add = (extra: Record<string, unknown>) => ({ agentId: 'agent', content: 'a fact', ...extra });

describe('Limits: values are docs/protocol.md\'s', () => {
  it('pins every number', () => {
    assert.equal(Limits.agentIdMaxLength, 128);
    assert.equal(Limits.agentIdPattern, '^[A-Za-z0-9._:@-]+$');
    assert.equal(Limits.contentMaxBytes, 16_384);
    assert.equal(Limits.tagsMaxItems, 32);
    assert.equal(Limits.tagMaxCodePoints, 64);
    assert.equal(Limits.queryMaxBytes, 1_024);
    assert.equal(Limits.limitMax, 100);
    assert.equal(Limits.limitDefault, 10);
    assert.equal(Limits.stateMaxBytes, 1024 * 1024);
    assert.equal(Limits.stateMaxDepth, 64);
    assert.equal(Limits.messageCountMax, 2 ** 31 - 1);
    assert.equal(Limits.exportLimitMax, 1_000);
    assert.equal(Limits.exportLimitDefault, 100);
    assert.equal(Limits.importMaxRecords, 1_000);
    assert.equal(Limits.exportCursorIdleMs, 60_000);
    assert.equal(Limits.maxLineBytes, 8 * 1024 * 1024);
    assert.equal(Limits.maxInFlightPerConnection, 64);
    assert.equal(Limits.maxBatchEntries, 64);
    assert.equal(Limits.defaultMaxConnections, 1_024);
  });
});

describe('agentId: 1-128 characters of [A-Za-z0-9._:@-]', () => {
  it('accepts 1 and 128 characters and every allowed class', () => {
    accepts(MemoryAdd, add({ agentId: 'a' }));
    accepts(MemoryAdd, add({ agentId: 'x'.repeat(128) }));
    for (const id of ['ABCXYZ', 'abcxyz', '0123456789', 'a.b', 'a_b', 'a:b', 'a@b', 'a-b', '.', ':', '@', '-', '_', 'user@host:proj.v2_x-1']) {
      accepts(MemoryAdd, add({ agentId: id }));
    }
  });

  it('rejects 0 and 129 characters', () => {
    rejects(MemoryAdd, add({ agentId: '' }), 'agentId');
    rejects(MemoryAdd, add({ agentId: 'x'.repeat(129) }), 'agentId');
  });

  it('rejects each forbidden character class', () => {
    const forbidden = [
      ' ', '\t', '\n', '\r', '\0', '\u007f', // white space and controls
      '/', '\\', '#', '%', '*', '+', '=', ',', ';', '!', '?', '~', '$', '&', "'", '"', '`', '|', '^',
      '(', ')', '[', ']', '{', '}', '<', '>', // punctuation outside the class
      'é', 'ß', 'Ω', 'ж', '中', // letters outside ASCII
      '\u00a0', '\u200b', '\u3000', // Unicode spaces
      '😀', '\ud800', // astral and a lone surrogate
    ];
    for (const ch of forbidden) {
      rejects(MemoryAdd, add({ agentId: `a${ch}b` }), 'agentId');
      rejects(MemoryAdd, add({ agentId: ch }), 'agentId');
    }
    // A trailing newline must not slip past an end anchor.
    rejects(MemoryAdd, add({ agentId: 'agent\n' }), 'agentId');
  });

  it('rejects non-strings and absence', () => {
    for (const id of [1, true, null, ['a'], { id: 'a' }]) rejects(MemoryAdd, add({ agentId: id }), 'agentId');
    rejects(MemoryAdd, { content: 'a fact' }, 'agentId');
  });
});

describe('content: 1-16,384 bytes of UTF-8, not only white space', () => {
  const cases: Array<[string, string]> = [
    ['ASCII', 'a'],
    ['2-byte', 'é'],
    ['3-byte', '€'],
    ['4-byte astral', '😀'],
  ];
  for (const [name, unit] of cases) {
    const size = Buffer.byteLength(unit, 'utf8');
    it(`${name}: 16,384 bytes in, one character more out`, () => {
      // Largest multiple of the unit that fits, topped up with ASCII.
      const fill = ofBytes(Math.floor(16_384 / size) * size, unit);
      const exact = fill + 'a'.repeat(16_384 - Buffer.byteLength(fill));
      accepts(MemoryAdd, add({ content: exact }));
      rejects(MemoryAdd, add({ content: exact + 'a' }), 'content');
      rejects(MemoryAdd, add({ content: fill + unit }), 'content');
    });
  }

  it('counts bytes, not UTF-16 code units', () => {
    // 8,193 code units but 16,386 bytes: a length check would let it pass.
    rejects(MemoryAdd, add({ content: 'é'.repeat(8_193) }), 'content');
    // 4,097 astral characters: 8,194 code units, 16,388 bytes.
    rejects(MemoryAdd, add({ content: '😀'.repeat(4_097) }), 'content');
    accepts(MemoryAdd, add({ content: '😀'.repeat(4_096) }));
  });

  it('rejects empty and white-space-only content', () => {
    for (const blank of ['', ' ', '   ', '\t', '\n', '\r\n', ' \t\n ', '\u00a0', '\u3000', '\u2003', '\ufeff']) {
      rejects(MemoryAdd, add({ content: blank }), 'content');
    }
    for (const some of ['a', ' a ', '\n.\n', '\u3000x']) accepts(MemoryAdd, add({ content: some }));
  });

  it('applies to memory.reflect content too', () => {
    const base = { agentId: 'agent', action: 'update', factId: ULID_A };
    accepts(MemoryReflect, { ...base, content: ofBytes(16_384) });
    rejects(MemoryReflect, { ...base, content: ofBytes(16_385) }, 'content');
    rejects(MemoryReflect, { ...base, content: ' ' }, 'content');
  });
});

describe('tags: at most 32, each 1-64 code points, not only white space', () => {
  it('accepts 0 and 32 tags, rejects 33', () => {
    accepts(MemoryAdd, add({ tags: [] }));
    accepts(MemoryAdd, add({ tags: Array.from({ length: 32 }, (_, i) => `t${i}`) }));
    rejects(MemoryAdd, add({ tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }), 'tags');
  });

  it('accepts a 64-code-point tag and rejects 65, astral included', () => {
    for (const unit of ['a', 'é', '中', '😀']) {
      accepts(MemoryAdd, add({ tags: [unit.repeat(64)] }));
      rejects(MemoryAdd, add({ tags: [unit.repeat(65)] }), 'tags[0]');
    }
    // 64 astral characters are 128 code units: counted as 64.
    assert.equal('😀'.repeat(64).length, 128);
  });

  it('names the failing tag by index', () => {
    rejects(MemoryAdd, add({ tags: ['ok', 'x'.repeat(65)] }), 'tags[1]');
    rejects(MemoryAdd, add({ tags: ['ok', 'fine', ''] }), 'tags[2]');
    rejects(MemoryAdd, add({ tags: ['ok', ' \t '] }), 'tags[1]');
    rejects(MemoryAdd, add({ tags: ['ok', 'fine', 'good', 7] }), 'tags[3]');
    rejects(MemoryAdd, add({ tags: ['ok', null] }), 'tags[1]');
  });

  it('rejects a tags value that is not an array', () => {
    for (const tags of ['a', 1, { 0: 'a' }]) rejects(MemoryAdd, add({ tags }), 'tags');
  });
});

describe('query: 1-1,024 bytes of UTF-8', () => {
  const search = (query: unknown) => ({ agentId: 'agent', query });
  it('accepts 1 and 1,024 bytes, rejects 0 and 1,025', () => {
    accepts(MemorySearch, search('a'));
    accepts(MemorySearch, search(ofBytes(1_024)));
    accepts(MemorySearch, search(ofBytes(1_024, '😀')));
    rejects(MemorySearch, search(''), 'query');
    rejects(MemorySearch, search(ofBytes(1_025)), 'query');
    rejects(MemorySearch, search(ofBytes(1_024, 'é') + 'a'), 'query');
    rejects(MemorySearch, search(ofBytes(1_028, '😀')), 'query');
  });

  it('rejects a non-string query', () => {
    for (const q of [1, null, ['a']]) rejects(MemorySearch, search(q), 'query');
  });
});

describe('limit: integer 1-100 (search and lists), 1-1,000 (export)', () => {
  const pagers = [
    [MemorySearch, { agentId: 'agent', query: 'q' }],
    [MemoryList, { agentId: 'agent' }],
    [CheckpointList, { agentId: 'agent' }],
  ] as const;
  for (const [descriptor, base] of pagers) {
    it(`${descriptor.method}: 1 and 100 in; 0, 101, 1.5, -1, "10" out`, () => {
      accepts(descriptor, { ...base });
      for (const limit of [1, 2, 99, 100]) accepts(descriptor, { ...base, limit });
      for (const limit of [0, 101, 1.5, -1, '10', true]) rejects(descriptor, { ...base, limit }, 'limit');
    });
  }

  it('admin.export: 1 and 1,000 in; 0, 1,001, 1.5 out', () => {
    for (const limit of [1, 1_000]) accepts(AdminExport, { limit });
    for (const limit of [0, 1_001, 1.5, '5']) rejects(AdminExport, { limit }, 'limit');
  });
});

describe('state: a JSON object, at most 1 MiB as UTF-8 JSON, nested at most 64 levels', () => {
  const save = (state: unknown) => ({ agentId: 'agent', state });
  it('accepts exactly 1,048,576 bytes and rejects 1,048,577', () => {
    accepts(CheckpointSave, save(stateOfBytes(1_048_576)));
    rejects(CheckpointSave, save(stateOfBytes(1_048_577)), 'state');
  });

  it('measures UTF-8 of the JSON text, not code units', () => {
    // 2-byte filler: same byte size with half the code units.
    accepts(CheckpointSave, save(stateOfBytes(1_048_576, 'é')));
    rejects(CheckpointSave, save(stateOfBytes(1_048_578, 'é')), 'state');
    // Astral filler, 4 bytes per 2 code units.
    accepts(CheckpointSave, save(stateOfBytes(1_048_576, '😀')));
    rejects(CheckpointSave, save(stateOfBytes(1_048_580, '😀')), 'state');
    // A newline is two bytes in JSON (`\n`): escapes count.
    const frame = Buffer.byteLength('{"s":""}');
    const half = (1_048_576 - frame) / 2;
    accepts(CheckpointSave, save({ s: '\n'.repeat(half) }));
    rejects(CheckpointSave, save({ s: '\n'.repeat(half + 1) }), 'state');
  });

  it('accepts 64 levels and rejects 65, arrays counting as levels', () => {
    accepts(CheckpointSave, save({}));
    accepts(CheckpointSave, save(nested(64)));
    rejects(CheckpointSave, save(nested(65)), 'state');
    accepts(CheckpointSave, save(nested(64, true)));
    rejects(CheckpointSave, save(nested(65, true)), 'state');
    // Far too deep must fail cleanly, not overflow the stack.
    rejects(CheckpointSave, save(nested(100_000)), 'state');
  });

  it('rejects arrays, null and scalars', () => {
    for (const state of [[], [1, 2], null, 'text', 42, true]) rejects(CheckpointSave, save(state), 'state');
    rejects(CheckpointSave, { agentId: 'agent' }, 'state');
  });
});

describe('messageCount: integer 0-2,147,483,647', () => {
  const save = (messageCount: unknown) => ({ agentId: 'agent', state: {}, messageCount });
  it('accepts the bounds and rejects past them', () => {
    for (const n of [0, 1, 2_147_483_647]) accepts(CheckpointSave, save(n));
    for (const n of [-1, 2_147_483_648, 1.5, '3', null, Number.MAX_SAFE_INTEGER]) {
      rejects(CheckpointSave, save(n), 'messageCount');
    }
  });
});

describe('daemon.hello strings: at most 256 characters', () => {
  it('accepts 256 and rejects 257', () => {
    accepts(DaemonHello, { client: 'c'.repeat(256), clientVersion: 'v'.repeat(256) });
    rejects(DaemonHello, { client: 'c'.repeat(257) }, 'client');
    rejects(DaemonHello, { clientVersion: 'v'.repeat(257) }, 'clientVersion');
  });
});

describe('admin.import: at most 1,000 records a call', () => {
  it('accepts 1,000 and rejects 1,001 as a whole', () => {
    const record = { type: 'fact', agentId: 'agent', id: ULID_A, content: 'x', createdAt: '2026-12-02T11:29:00.000Z' };
    accepts(AdminImport, { records: Array.from({ length: 1_000 }, () => record) });
    rejects(AdminImport, { records: Array.from({ length: 1_001 }, () => record) }, 'records');
  });
});

describe('null is never a stand-in for an absent optional param', () => {
  const cases: Array<[MethodDescriptor, Record<string, unknown>, string[]]> = [
    [MemoryAdd, { agentId: 'agent', content: 'x' }, ['tags']],
    [MemorySearch, { agentId: 'agent', query: 'q' }, ['limit']],
    [MemoryList, { agentId: 'agent' }, ['after', 'limit', 'order']],
    [MemoryReflect, { agentId: 'agent', action: 'update', factId: ULID_A }, ['content']],
    [CheckpointSave, { agentId: 'agent', state: {} }, ['messageCount']],
    [CheckpointResume, { agentId: 'agent' }, ['checkpointId', 'reportNotFound']],
    [CheckpointList, { agentId: 'agent' }, ['after', 'limit']],
    [AdminExport, {}, ['agentId', 'cursor', 'limit']],
    [DaemonHello, {}, ['client', 'clientVersion']],
  ];
  for (const [descriptor, base, optional] of cases) {
    it(`${descriptor.method}: ${optional.join(', ')}`, () => {
      accepts(descriptor, base);
      for (const key of optional) rejects(descriptor, { ...base, [key]: null }, key);
    });
  }
});
