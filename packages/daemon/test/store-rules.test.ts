// Issue 16: the store's backend-neutral rules (ADR 0027), as pure
// functions every backend calls: dedupe key, fact versions, import plan.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExportRecord } from '@memoryd/protocol';
import { DaemonError, DaemonErrorCodes } from '@memoryd/daemon';
import {
  checkImportRecords,
  contentHash,
  deletedVersion,
  isCurrent,
  nextVersion,
  notCurrentError,
  planImport,
  storedFactOf,
  supersededVersion,
  updateChange,
} from '@memoryd/daemon/store-rules';

const AT = '2026-12-04T10:00:00.000Z';
const ID = '01JGFJJZ00VHBZZ22QRAVR8Z8H';
const ID2 = '01JGFJJZ00VHBZZ22QRAVR8Z9J';

describe('dedupe key', () => {
  it('is one key for the same text after NFC, case folding, trimming and collapsing', () => {
    const key = contentHash('Straße  café');
    for (const same of ['STRASSE café', ' strasse\tcafe\u0301 ', 'straße CAFÉ']) assert.equal(contentHash(same), key, same);
    assert.notEqual(contentHash('strasse cafes'), key);
    assert.match(key, /^[0-9a-f]{64}$/);
  });
});

describe('fact versions', () => {
  const old = { id: ID, content: 'old text', tags: ['a'], createdAt: AT };

  it('makes history of an update and a delete, and a new fact that keeps the tags', () => {
    assert.equal(isCurrent(old), true);
    const superseded = supersededVersion(old, ID2, '2026-12-05T00:00:00.000Z');
    assert.deepEqual(superseded, { ...old, supersededBy: ID2, updatedAt: '2026-12-05T00:00:00.000Z' });
    assert.equal(isCurrent(superseded), false);
    const deleted = deletedVersion(old, '2026-12-06T00:00:00.000Z');
    assert.deepEqual(deleted, { ...old, deletedAt: '2026-12-06T00:00:00.000Z' });
    assert.equal(isCurrent(deleted), false);
    assert.deepEqual(nextVersion(old, ID2, { content: 'new text' }, AT), { id: ID2, content: 'new text', tags: ['a'], createdAt: AT });
    assert.deepEqual(nextVersion({ id: ID, content: 'x', createdAt: AT }, ID2, { content: 'y' }, AT), { id: ID2, content: 'y', createdAt: AT });
    // Tags alone: the old text with the new tags; [] leaves none.
    assert.deepEqual(nextVersion(old, ID2, { tags: ['b', 'c'] }, AT), { id: ID2, content: 'old text', tags: ['b', 'c'], createdAt: AT });
    assert.deepEqual(nextVersion(old, ID2, { tags: [] }, AT), { id: ID2, content: 'old text', createdAt: AT });
    assert.deepEqual(old, { id: ID, content: 'old text', tags: ['a'], createdAt: AT }, 'the old version is not changed in place');
  });

  it('asks an update for its text, and says why a fact is not current', () => {
    assert.deepEqual(updateChange({ action: 'update', content: 'text' }), { content: 'text' });
    assert.deepEqual(updateChange({ action: 'update', tags: [] }), { tags: [] });
    assert.equal(updateChange({ action: 'delete', content: 'ignored', tags: ['x'] }), undefined);
    assert.throws(() => updateChange({ action: 'update' }), (err: unknown) => err instanceof DaemonError && err.code === DaemonErrorCodes.InvalidParams);
    const why = (past: Parameters<typeof notCurrentError>[2]) => notCurrentError('ag', ID, past);
    assert.match(why(supersededVersion(old, ID2, AT)).message, new RegExp(`superseded by ${ID2}`));
    assert.match(why(deletedVersion(old, AT)).message, /was deleted/);
    assert.match(why(undefined).message, /agent ag has no fact/);
    assert.equal(why(undefined).code, DaemonErrorCodes.NotFound);
  });
});

describe('import plan', () => {
  const fact = (agentId: string, id: string): ExportRecord => ({ type: 'fact', agentId, id, content: `fact ${id}`, createdAt: AT });

  it('rejects invalid records by index with the wire code and a reason, keeping the rest', () => {
    const { valid, rejected } = checkImportRecords([fact('a', ID), { type: 'fact', agentId: 'a' }, 'not a record', fact('b', ID2)]);
    assert.deepEqual(valid.map((r) => [r.agentId, r.id]), [['a', ID], ['b', ID2]]);
    assert.deepEqual(rejected.map((r) => [r.index, r.code]), [[1, -32602], [2, -32602]]);
    assert.ok(rejected.every((r) => r.reason.startsWith(`records[${r.index}]`)), JSON.stringify(rejected));
  });

  it('skips what the agent has and what came earlier in the call, by kind, agent and id', () => {
    const checkpoint: ExportRecord = { type: 'checkpoint', agentId: 'a', id: ID, createdAt: AT, state: {} };
    const records = [fact('a', ID), fact('a', ID), fact('b', ID), checkpoint, fact('a', ID2)];
    const { store, skipped } = planImport(records, [false, false, false, false, true]);
    assert.deepEqual(store, [records[0], records[2], records[3]]);
    assert.equal(skipped, 2);
  });

  it('stores a record’s fields as given, leaving absent ones out', () => {
    const r = { type: 'fact', agentId: 'a', id: ID, content: 'c', createdAt: AT, supersededBy: ID2, updatedAt: AT } as const;
    assert.deepEqual(storedFactOf(r), { id: ID, content: 'c', createdAt: AT, supersededBy: ID2, updatedAt: AT });
    assert.deepEqual(Object.keys(storedFactOf(fact('a', ID) as Extract<ExportRecord, { type: 'fact' }>)), ['id', 'content', 'createdAt']);
  });
});
