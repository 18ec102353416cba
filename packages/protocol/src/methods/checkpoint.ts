import { Type } from '@sinclair/typebox';
import { defineMethod } from '../method.js';
import { AgentId, PageAfter, PageNext, CheckpointState, Limit, MessageCount, Timestamp, Ulid } from '../schemas/primitives.js';
import { Checkpoint, CheckpointSummary } from '../schemas/records.js';

/** Saves session state as a new checkpoint. */
export const CheckpointSave = defineMethod(
  'checkpoint.save',
  Type.Object({
    agentId: AgentId,
    state: CheckpointState,
    messageCount: Type.Optional(MessageCount),
  }),
  Type.Object({
    checkpointId: Ulid,
    createdAt: Timestamp,
  }),
  'Saves a JSON object of session state as a new checkpoint.',
);

/**
 * Returns a checkpoint: the given one, or the agent's latest. Without one,
 * -32004 unless `reportNotFound` is true, then `{notFound: true}`.
 */
export const CheckpointResume = defineMethod(
  'checkpoint.resume',
  Type.Object({
    agentId: AgentId,
    checkpointId: Type.Optional(Ulid),
    reportNotFound: Type.Optional(
      Type.Boolean({
        description: 'Answer a missing checkpoint with {notFound: true} instead of error -32004. @since 1',
      }),
    ),
  }),
  Type.Union([
    Type.Object({ checkpoint: Checkpoint }),
    Type.Object({ notFound: Type.Literal(true) }, { description: 'Only when reportNotFound was true.' }),
  ]),
  'The given checkpoint or the latest; absence is -32004, or {notFound: true} with reportNotFound.',
);

/** Pages through the agent's checkpoints, oldest first, without state. */
export const CheckpointList = defineMethod(
  'checkpoint.list',
  Type.Object({
    agentId: AgentId,
    after: Type.Optional(PageAfter),
    limit: Type.Optional(Limit),
  }),
  Type.Object({
    checkpoints: Type.Array(CheckpointSummary),
    next: Type.Optional(PageNext),
  }),
  'Checkpoints (id, createdAt, messageCount), oldest first, a page at a time.',
);
