import { ClientErrorCodes, isClientError } from '@memoryd/client';
import { AgentId, Capabilities, CheckpointResume, ErrorCodes, Ulid } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { publishUnion } from '../schema.js';
import { AgentIdOut, IdOut, TimeOut } from './common.js';
import { defineTool, failure, type OnMissing, quote, success } from './tool.js';

/** Input of `checkpoint_resume`. */
export const CheckpointResumeInput = Type.Object({
  agent_id: AgentId,
  checkpoint_id: Type.Optional(
    Type.String({ pattern: Ulid.pattern, description: 'A checkpoint id from checkpoint_save; omit it for the latest checkpoint.' }),
  ),
  on_missing: Type.Optional(
    Type.Union([Type.Literal('error'), Type.Literal('empty')], {
      description:
        'When there is no checkpoint: "error" reports it as a tool error; "empty" returns {agent_id, found: false}. ' +
        'Default "error" (the server may be configured otherwise).',
    }),
  ),
});

/** The checkpoint branch of `checkpoint_resume`'s output. */
export const CheckpointFound = Type.Object(
  {
    id: IdOut('Checkpoint id.'),
    created_at: TimeOut('When the checkpoint was saved (RFC 3339 UTC).'),
    state: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'The saved session state, whole, as it was given to checkpoint_save.' }),
    ),
    message_count: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Messages in the session when it was saved; absent when not given.' }),
    ),
  },
  { description: 'The checkpoint.' },
);
/** Typed checkpoint branch. */
export type CheckpointFound = Static<typeof CheckpointFound>;

/** The absence branch: only with `on_missing: "empty"`. */
export const CheckpointAbsent = Type.Object(
  {
    agent_id: AgentIdOut,
    found: Type.Literal(false, { description: 'Always false: the agent has no such checkpoint.' }),
  },
  { description: 'No checkpoint (only with on_missing: "empty").' },
);
/** Typed absence branch. */
export type CheckpointAbsent = Static<typeof CheckpointAbsent>;

/** The hint appended when an old daemon answers a missing checkpoint with -32004. */
export const VERSION_SKEW_HINT =
  'hint: the running memory daemon predates this memoryd-mcp and cannot report a missing checkpoint; ' +
  'restart the memory daemon with the updated memoryd binary (stop it with SIGTERM or its daemon.shutdown method; the next call starts the new one).';

/** The pinned prose of a resumed checkpoint. */
export function resumeProse(agentId: string, c: CheckpointFound): string {
  const lines = [`Checkpoint ${c.id} for agent ${quote(agentId)} (created ${c.created_at})`];
  if (c.message_count !== undefined) lines.push(`Messages: ${c.message_count}`);
  lines.push('State:', JSON.stringify(c.state ?? {}, null, 2));
  return lines.join('\n');
}

/** The pinned absence notice (the error's text, and the text of `found: false`). */
export function absenceProse(agentId: string): string {
  return `No checkpoint found for agent ${quote(agentId)}.`;
}

/**
 * `checkpoint_resume`: `checkpoint.resume`, always with
 * `reportNotFound: true`. Absence is decided only from `{notFound: true}`;
 * an error (even -32004) is a failure, never "no checkpoint".
 */
export const checkpointResumeTool = defineTool({
  name: 'checkpoint_resume',
  title: 'Resume from a checkpoint',
  description:
    "Get back an agent's saved session state, to continue earlier work. Use it at the start of a session " +
    '(or when the user asks to pick up where things stopped): without checkpoint_id it returns the latest ' +
    'checkpoint. Returns the checkpoint id, its creation time, the whole saved state and the message count ' +
    'when one was saved. When the agent has no checkpoint it is a tool error, or {agent_id, found: false} ' +
    'with on_missing: "empty".',
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: CheckpointResumeInput,
  outputSchema: publishUnion("The checkpoint; or, with on_missing: \"empty\" and no checkpoint, {agent_id, found: false}.", [
    CheckpointFound,
    CheckpointAbsent,
  ]),
  async run(args, { backend, resumeOnMissing }) {
    const onMissing: OnMissing = args.on_missing ?? resumeOnMissing;
    let r;
    try {
      r = await backend.call(CheckpointResume, {
        agentId: args.agent_id,
        ...(args.checkpoint_id !== undefined ? { checkpointId: args.checkpoint_id } : {}),
        reportNotFound: true,
      });
    } catch (err) {
      // A daemon without the capability ignored reportNotFound and answered
      // -32004: still a failure (docs/api-stability.md, "Version skew"), with
      // the fix.
      if (
        isClientError(err, ClientErrorCodes.Rpc) &&
        err.rpcCode === ErrorCodes.NotFound &&
        !backend.hasCapability(Capabilities.reportNotFound)
      ) {
        return failure(`checkpoint resume error: ${err.message}\n${VERSION_SKEW_HINT}`);
      }
      throw err;
    }
    if ('notFound' in r && r.notFound === true) {
      const text = absenceProse(args.agent_id);
      if (onMissing === 'error') return failure(text);
      return success<CheckpointAbsent>({ agent_id: args.agent_id, found: false }, text);
    }
    if (!('checkpoint' in r) || r.checkpoint === undefined) {
      throw new Error('the daemon answered with neither a checkpoint nor notFound');
    }
    const c = r.checkpoint;
    const out: CheckpointFound = {
      id: c.id,
      created_at: c.createdAt,
      state: c.state,
      ...(c.messageCount !== undefined ? { message_count: c.messageCount } : {}),
    };
    return success<CheckpointFound>(out, resumeProse(args.agent_id, out));
  },
});
