import { decodeError } from '../../errors.js';
import { StoredCheckpoint, StoredFact, checkStored } from '../stored-records.js';

/*
 * Rows of the PostgreSQL tables (pg-schema.ts) as the stored records of
 * stored-records.ts: checked as LevelDB's values are (codec.ts), so a row
 * a bug or a hand-edit left unusable is a decode error for the request
 * that read it, never served as it is.
 */

/** A `facts` row, as selected by {@link FACT_COLUMNS}. */
export interface FactRow {
  agent_id: string;
  id: string;
  content: string;
  tags: string[] | null;
  created_at: string;
  updated_at: string | null;
  superseded_by: string | null;
  deleted_at: string | null;
  context: string | null;
}

/** The columns of a {@link FactRow}. */
export const FACT_COLUMNS = 'agent_id, id, content, tags, created_at, updated_at, superseded_by, deleted_at, context';

/** A `checkpoints` row. */
export interface CheckpointRow {
  agent_id: string;
  id: string;
  created_at: string;
  state: string;
  message_count: number | null;
}

/** A fact row as its stored version. */
export function storedFactOfRow(row: FactRow): StoredFact {
  const fact: Record<string, unknown> = { id: row.id, content: row.content, createdAt: row.created_at };
  if (row.tags !== null) fact['tags'] = row.tags;
  if (row.updated_at !== null) fact['updatedAt'] = row.updated_at;
  if (row.superseded_by !== null) fact['supersededBy'] = row.superseded_by;
  if (row.deleted_at !== null) fact['deletedAt'] = row.deleted_at;
  if (row.context !== null && row.context !== undefined) fact['context'] = row.context;
  return checkStored(StoredFact, `fact ${row.id} of agent ${row.agent_id}`, fact);
}

/** A checkpoint row as its stored checkpoint (its state parsed). */
export function storedCheckpointOfRow(row: CheckpointRow): StoredCheckpoint {
  const what = `checkpoint ${row.id} of agent ${row.agent_id}`;
  let state: unknown;
  try {
    state = JSON.parse(row.state);
  } catch (err) {
    throw decodeError(what, err);
  }
  const checkpoint: Record<string, unknown> = { id: row.id, createdAt: row.created_at, state };
  if (row.message_count !== null) checkpoint['messageCount'] = row.message_count;
  return checkStored(StoredCheckpoint, what, checkpoint);
}
