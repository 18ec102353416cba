import { Type } from '@sinclair/typebox';
import { Limits } from '../limits.js';
import { defineMethod } from '../method.js';
import { AgentId } from '../schemas/primitives.js';
import { ExportRecord } from '../schemas/records.js';

/**
 * Reads the store as export records. The first call opens a consistent
 * snapshot; its `cursor` continues that snapshot (other params are then
 * ignored). The last page has no cursor; an idle cursor expires after 60 s.
 */
export const AdminExport = defineMethod(
  'admin.export',
  Type.Object({
    agentId: Type.Optional(AgentId),
    cursor: Type.Optional(Type.String({ description: 'The cursor of the previous page.' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Limits.exportLimitMax, description: 'Records per page: 1-1000, default 100.' }),
    ),
  }),
  Type.Object({
    records: Type.Array(ExportRecord, {
      description: 'Ordered by agentId, then facts before checkpoints, each by id.',
    }),
    cursor: Type.Optional(Type.String({ description: 'Absent on the last page.' })),
  }),
  'Pages through a consistent snapshot of every fact version and checkpoint.',
);

/**
 * Imports export records, keeping ids and times. Each record is stored
 * whole or not at all; one whose id the agent already has is skipped; one
 * that fails validation is rejected with its index while the rest import.
 */
export const AdminImport = defineMethod(
  'admin.import',
  Type.Object({
    records: Type.Array(Type.Unknown(), {
      maxItems: Limits.importMaxRecords,
      description: 'At most 1000 export records; each is validated on its own.',
    }),
  }),
  Type.Object({
    imported: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0, description: 'Records whose id the agent already had.' }),
    rejected: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        code: Type.Integer(),
        reason: Type.String(),
      }),
    ),
  }),
  'Imports up to 1000 export records; duplicates are skipped, invalid ones rejected by index.',
);

/**
 * Re-embeds every current fact (memoryctl embeddings rebuild): drops the
 * stored vectors and queues every fact; searches are lexical for the facts
 * not embedded again yet. Needs an embedder.
 */
export const AdminReembed = defineMethod(
  'admin.reembed',
  Type.Object({}),
  Type.Object({ pending: Type.Integer({ minimum: 0, description: 'Facts queued to be embedded again.' }) }),
  'Drops every stored vector and embeds every current fact again; answers how many are queued. -32602 when the daemon runs without an embedder.',
);
