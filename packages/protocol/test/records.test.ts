// FactRecord, CheckpointRecord, ExportHeader and validateExportRecord:
// the export file format of docs/protocol.md "Export and import", with the field
// paths an admin.import rejection reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CheckpointRecord,
  ExportHeader,
  FactRecord,
  validate,
  validateExportRecord,
} from '@memoryd/protocol';
import { TIME, ULID_A, ULID_B, assertFail, assertOk, nested, ofBytes, stateOfBytes } from './helpers/cases.js';

const fact = { type: 'fact', agentId: 'agent', id: ULID_A, content: 'a fact', createdAt: TIME };
const checkpoint = { type: 'checkpoint', agentId: 'agent', id: ULID_B, createdAt: TIME, state: { step: 1 } };

const BAD_TIMES = [
  '2026-12-02T11:29:00Z', // no milliseconds
  '2026-12-02T11:29:00.0Z',
  '2026-12-02T11:29:00.000+00:00', // not UTC-Z
  '2026-12-02 11:29:00.000Z',
  '2026-12-02T11:29:00.000z',
  '2026-12-02',
  '',
  1_733_000_000_000,
];

describe('FactRecord', () => {
  it('accepts a current fact and every optional field', () => {
    assertOk(validate(FactRecord, fact), 'minimal');
    assertOk(validate(FactRecord, { ...fact, tags: ['t'] }), 'tags');
    assertOk(validate(FactRecord, { ...fact, updatedAt: TIME, supersededBy: ULID_B }), 'superseded');
    assertOk(validate(FactRecord, { ...fact, deletedAt: TIME }), 'deleted');
    assertOk(validate(FactRecord, { ...fact, content: ofBytes(16_384, '😀'), tags: Array(32).fill('t'.repeat(64)) }), 'at limits');
  });

  it('rejects each field out of shape', () => {
    const at = (value: unknown, field: string) => assertFail(validate(FactRecord, value, 'record'), field, field);
    at({ ...fact, type: 'checkpoint' }, 'record.type');
    at({ ...fact, agentId: 'a/b' }, 'record.agentId');
    at({ ...fact, agentId: 'x'.repeat(129) }, 'record.agentId');
    at({ ...fact, id: 'not-a-ulid' }, 'record.id');
    at({ ...fact, content: ofBytes(16_385) }, 'record.content');
    at({ ...fact, content: '\n\t ' }, 'record.content');
    at({ ...fact, tags: Array(33).fill('t') }, 'record.tags');
    at({ ...fact, tags: ['t', 'x'.repeat(65)] }, 'record.tags[1]');
    at({ ...fact, supersededBy: 'x' }, 'record.supersededBy');
    for (const time of BAD_TIMES) {
      at({ ...fact, createdAt: time }, 'record.createdAt');
      at({ ...fact, updatedAt: time }, 'record.updatedAt');
      at({ ...fact, deletedAt: time }, 'record.deletedAt');
    }
    for (const key of ['tags', 'updatedAt', 'supersededBy', 'deletedAt']) at({ ...fact, [key]: null }, `record.${key}`);
    for (const key of ['agentId', 'id', 'content', 'createdAt']) {
      const { [key]: _, ...without } = fact as Record<string, unknown>;
      at(without, `record.${key}`);
    }
  });
});

describe('CheckpointRecord', () => {
  it('accepts', () => {
    assertOk(validate(CheckpointRecord, checkpoint), 'minimal');
    assertOk(validate(CheckpointRecord, { ...checkpoint, messageCount: 0 }), 'messageCount 0');
    assertOk(validate(CheckpointRecord, { ...checkpoint, messageCount: 2_147_483_647 }), 'messageCount max');
    assertOk(validate(CheckpointRecord, { ...checkpoint, state: stateOfBytes(1_048_576) }), '1 MiB');
    assertOk(validate(CheckpointRecord, { ...checkpoint, state: nested(64) }), '64 levels');
  });

  it('rejects', () => {
    const at = (value: unknown, field: string) => assertFail(validate(CheckpointRecord, value, 'record'), field, field);
    at({ ...checkpoint, type: 'fact' }, 'record.type');
    at({ ...checkpoint, state: [] }, 'record.state');
    at({ ...checkpoint, state: null }, 'record.state');
    at({ ...checkpoint, state: stateOfBytes(1_048_577) }, 'record.state');
    at({ ...checkpoint, state: nested(65) }, 'record.state');
    at({ ...checkpoint, messageCount: -1 }, 'record.messageCount');
    at({ ...checkpoint, messageCount: 2_147_483_648 }, 'record.messageCount');
    at({ ...checkpoint, messageCount: 0.5 }, 'record.messageCount');
    at({ ...checkpoint, messageCount: null }, 'record.messageCount');
    at({ ...checkpoint, createdAt: '2026-12-02T11:29:00Z' }, 'record.createdAt');
    const { state: _, ...stateless } = checkpoint;
    at(stateless, 'record.state');
  });
});

describe('validateExportRecord', () => {
  it('accepts both record types', () => {
    const f = validateExportRecord(fact, 'records[0]');
    assertOk(f, 'fact');
    assert.equal(f.ok && f.value.type, 'fact');
    const c = validateExportRecord(checkpoint, 'records[1]');
    assertOk(c, 'checkpoint');
    assert.equal(c.ok && c.value.type, 'checkpoint');
  });

  it('names the field under the record\'s index', () => {
    assertFail(validateExportRecord({ ...fact, content: ofBytes(16_385) }, 'records[3]'), 'records[3].content', 'content');
    assertFail(validateExportRecord({ ...fact, tags: ['a', ''] }, 'records[3]'), 'records[3].tags[1]', 'tag');
    assertFail(validateExportRecord({ ...checkpoint, state: [] }, 'records[7]'), 'records[7].state', 'state');
    assertFail(validateExportRecord({ ...fact, agentId: '' }, 'records[999]'), 'records[999].agentId', 'agentId');
  });

  it('splits on type first, so a checkpoint field is not blamed on a fact', () => {
    // A checkpoint missing its state fails at state, not as a union mismatch.
    const { state: _, ...stateless } = checkpoint;
    assertFail(validateExportRecord(stateless, 'records[2]'), 'records[2].state', 'state');
  });

  it('rejects unknown or missing types at `.type`', () => {
    for (const type of [undefined, 'memoryd-export', 'Fact', 'facts', 1, null]) {
      assertFail(validateExportRecord({ ...fact, type }, 'records[4]'), 'records[4].type', String(type));
    }
  });

  it('rejects non-objects at the record itself', () => {
    for (const value of [null, 42, 'fact', [], [fact], true, undefined]) {
      assertFail(validateExportRecord(value, 'records[5]'), 'records[5]', String(value));
    }
  });

  it('defaults the root to "record" and allows an empty root', () => {
    assertFail(validateExportRecord({ ...fact, id: 'x' }), 'record.id', 'default root');
    assertFail(validateExportRecord({ ...fact, id: 'x' }, ''), 'id', 'empty root');
    assertFail(validateExportRecord({ type: 'x' }, ''), 'type', 'empty root type');
  });

  it('accepts unknown keys, so a newer export still imports', () => {
    assertOk(validateExportRecord({ ...fact, futureField: 1 }), 'fact');
    assertOk(validateExportRecord({ ...checkpoint, futureField: { a: 1 } }), 'checkpoint');
  });
});

describe('ExportHeader', () => {
  const header = { type: 'memoryd-export', version: 1, createdAt: TIME, daemonVersion: '0.1.0' };
  it('accepts docs/protocol.md\'s header line', () => {
    assertOk(validate(ExportHeader, header), 'header');
    assertOk(validate(ExportHeader, JSON.parse(JSON.stringify(header))), 'round trip');
  });
  it('rejects another type or version', () => {
    assertFail(validate(ExportHeader, { ...header, type: 'fact' }, ''), 'type', 'type');
    assertFail(validate(ExportHeader, { ...header, version: 2 }, ''), 'version', 'version');
    assertFail(validate(ExportHeader, { ...header, version: '1' }, ''), 'version', 'version string');
    const { daemonVersion: _, ...without } = header;
    assertFail(validate(ExportHeader, without, ''), 'daemonVersion', 'daemonVersion');
  });
});
