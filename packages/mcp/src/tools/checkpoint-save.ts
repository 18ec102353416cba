import { AgentId, CheckpointSave, CheckpointState, MessageCount } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { publishSchema } from '../schema.js';
import { AgentIdOut, IdOut, TimeOut } from './common.js';
import { defineTool, quote, success } from './tool.js';

/** Input of `checkpoint_save`. */
export const CheckpointSaveInput = Type.Object({
  agent_id: AgentId,
  state: CheckpointState,
  message_count: Type.Optional(MessageCount),
});

/** `structuredContent` of `checkpoint_save`. */
export const CheckpointSaveOutput = Type.Object(
  {
    agent_id: AgentIdOut,
    checkpoint_id: IdOut('Id of the new checkpoint: pass it to checkpoint_resume to get this one back.'),
    created_at: TimeOut('When the checkpoint was saved (RFC 3339 UTC).'),
  },
  { description: 'The saved checkpoint.' },
);
/** Typed `structuredContent` of `checkpoint_save`. */
export type CheckpointSaveOutput = Static<typeof CheckpointSaveOutput>;

/** The pinned prose of a save. */
export function saveProse(out: CheckpointSaveOutput): string {
  return `Saved checkpoint ${out.checkpoint_id} for agent ${quote(out.agent_id)} at ${out.created_at}.`;
}

/** `checkpoint_save`: `checkpoint.save` with snake_case in and out. */
export const checkpointSaveTool = defineTool({
  name: 'checkpoint_save',
  title: 'Save a checkpoint',
  description:
    "Save the agent's current session state (any JSON object: task, progress, open questions, next steps) " +
    'as a new checkpoint, so a later session can pick up where this one stopped with checkpoint_resume. ' +
    'Use it at milestones and before the session may end. Each save adds a checkpoint; earlier ones are ' +
    'kept. Returns the checkpoint id and its creation time.',
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: CheckpointSaveInput,
  outputSchema: publishSchema(CheckpointSaveOutput),
  async run(args, { backend }) {
    const r = await backend.call(CheckpointSave, {
      agentId: args.agent_id,
      state: args.state,
      ...(args.message_count !== undefined ? { messageCount: args.message_count } : {}),
    });
    const out: CheckpointSaveOutput = { agent_id: args.agent_id, checkpoint_id: r.checkpointId, created_at: r.createdAt };
    return success<CheckpointSaveOutput>(out, saveProse(out));
  },
});
