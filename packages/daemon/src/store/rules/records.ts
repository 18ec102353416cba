import type { ExportRecord, Fact, FactVersion } from '@memoryd/protocol';
import type { StoredCheckpoint, StoredFact } from '../stored-records.js';

/*
 * Stored records as the methods hand them out, the same on every backend
 * (ADR 0027): absent optional keys left out, never null.
 */

/** A current fact as memory.list and memory.search return it (no history fields). */
export function toFact(stored: StoredFact, score?: number): Fact {
  const fact: Fact = { id: stored.id, content: stored.content, createdAt: stored.createdAt };
  if (stored.tags !== undefined) fact.tags = stored.tags;
  if (score !== undefined) fact.score = score;
  return fact;
}

/** A fact version as memory.history returns it: its history fields, no context. */
export function toVersion(f: StoredFact): FactVersion {
  const v: FactVersion = { id: f.id, content: f.content, createdAt: f.createdAt };
  if (f.tags !== undefined) v.tags = f.tags;
  if (f.updatedAt !== undefined) v.updatedAt = f.updatedAt;
  if (f.supersededBy !== undefined) v.supersededBy = f.supersededBy;
  if (f.deletedAt !== undefined) v.deletedAt = f.deletedAt;
  return v;
}

/** A fact version as an export record. */
export function factRecord(agentId: string, f: StoredFact): ExportRecord {
  // The version's fields in the version's order, then what only an export carries.
  const record: ExportRecord = { type: 'fact', agentId, ...toVersion(f) };
  if (f.context !== undefined) record.context = f.context;
  return record;
}

/** A checkpoint as an export record. */
export function checkpointRecord(agentId: string, c: StoredCheckpoint): ExportRecord {
  const record: ExportRecord = { type: 'checkpoint', agentId, id: c.id, createdAt: c.createdAt, state: c.state };
  if (c.messageCount !== undefined) record.messageCount = c.messageCount;
  return record;
}
