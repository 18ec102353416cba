import { type AdminImport, ErrorCodes, type ExportRecord, type ResultOf, validateExportRecord } from '@memoryd/protocol';
import type { StoredCheckpoint, StoredFact } from '../stored-records.js';

/*
 * What `admin.import` keeps, skips and rejects, the same on every backend
 * (ADR 0027). A backend tells which ids its agents already have, and
 * stores what the plan says in one atomic change.
 */

/** A rejected record: its index in the call, the wire code, and why. */
export type ImportRejection = ResultOf<typeof AdminImport>['rejected'][number];

/**
 * Validates each record on its own (as records[i]): the valid ones, and a
 * rejection by index for each other. An invalid record never stops the
 * rest.
 */
export function checkImportRecords(records: readonly unknown[]): { valid: ExportRecord[]; rejected: ImportRejection[] } {
  const valid: ExportRecord[] = [];
  const rejected: ImportRejection[] = [];
  records.forEach((record, index) => {
    const checked = validateExportRecord(record, `records[${index}]`);
    if (checked.ok) valid.push(checked.value);
    else rejected.push({ index, code: ErrorCodes.InvalidParams, reason: `${checked.error.field}: ${checked.error.reason}` });
  });
  return { valid, rejected };
}

/**
 * Which of the valid records to store, and how many are skipped: a record
 * whose id its agent already has as the same kind of record (`exists[i]`
 * for `valid[i]`), or that came earlier in this call, is skipped.
 */
export function planImport(valid: readonly ExportRecord[], exists: readonly boolean[]): { store: ExportRecord[]; skipped: number } {
  const seen = new Set<string>();
  const store: ExportRecord[] = [];
  let skipped = 0;
  valid.forEach((r, i) => {
    const identity = `${r.type}\x00${r.agentId}\x00${r.id}`;
    if (exists[i] === true || seen.has(identity)) {
      skipped++;
      return;
    }
    seen.add(identity);
    store.push(r);
  });
  return { store, skipped };
}

/** A fact record as its agent's stored version: ids and times as given, absent keys left out. */
export function storedFactOf(r: Extract<ExportRecord, { type: 'fact' }>): StoredFact {
  const fact: StoredFact = { id: r.id, content: r.content, createdAt: r.createdAt };
  if (r.tags !== undefined) fact.tags = r.tags;
  if (r.updatedAt !== undefined) fact.updatedAt = r.updatedAt;
  if (r.supersededBy !== undefined) fact.supersededBy = r.supersededBy;
  if (r.deletedAt !== undefined) fact.deletedAt = r.deletedAt;
  if (r.context !== undefined) fact.context = r.context;
  return fact;
}

/** A checkpoint record as its agent's stored checkpoint. */
export function storedCheckpointOf(r: Extract<ExportRecord, { type: 'checkpoint' }>): StoredCheckpoint {
  const checkpoint: StoredCheckpoint = { id: r.id, createdAt: r.createdAt, state: r.state };
  if (r.messageCount !== undefined) checkpoint.messageCount = r.messageCount;
  return checkpoint;
}
