import { AgentId, Content, MemoryReflect, Ulid } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { invalidArguments } from '../args.js';
import { publishSchema } from '../schema.js';
import { defineTool, failure, quote, success } from './tool.js';

const Action = (description: string) => Type.Union([Type.Literal('update'), Type.Literal('delete')], { description });

/** Input of `memory_reflect`. */
export const MemoryReflectInput = Type.Object({
  agent_id: AgentId,
  action: Action('"update" replaces the fact\'s text with content; "delete" forgets the fact.'),
  fact_id: Type.String({ pattern: Ulid.pattern, description: 'Id of a current fact, from memory_search or memory_add.' }),
  // Content's rule (kept by the spread, symbol keys included), with a
  // description saying when it is needed.
  content: Type.Optional({
    ...Content,
    description: 'The corrected text (required for "update", ignored for "delete"): 1-16384 bytes of UTF-8, not only white space.',
  } as typeof Content),
});

/** `structuredContent` of `memory_reflect`. */
export const MemoryReflectOutput = Type.Object(
  {
    action: Action('What was applied: "update" or "delete".'),
    agent: Type.String({ description: 'The agent id the call was for, as given.' }),
    ok: Type.Literal(true, { description: 'Always true: the change is stored.' }),
  },
  { description: 'The applied change.' },
);
/** Typed `structuredContent` of `memory_reflect`. */
export type MemoryReflectOutput = Static<typeof MemoryReflectOutput>;

/** The pinned prose of a reflect. */
export function reflectProse(out: MemoryReflectOutput, factId: string): string {
  return `Applied ${out.action} to fact ${factId} for agent ${quote(out.agent)}.`;
}

/** `memory_reflect`: `memory.reflect` with snake_case in and out. */
export const memoryReflectTool = defineTool({
  name: 'memory_reflect',
  title: 'Correct or forget a fact',
  description:
    "Correct or remove a fact in an agent's long-term memory. Use it when a remembered fact turns out " +
    'wrong or outdated (action "update" with the new content) or should be forgotten (action "delete"); ' +
    'get the fact_id from memory_search first. The old text is kept as history but no longer found by ' +
    'memory_search. Returns the applied action.',
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input: MemoryReflectInput,
  outputSchema: publishSchema(MemoryReflectOutput),
  async run(args, { backend }) {
    // Checked here, like every other argument, so the agent reads which of
    // its own arguments is wrong rather than a daemon error.
    if (args.action === 'update' && args.content === undefined) {
      return failure(invalidArguments('content', 'is required when action is "update"'));
    }
    const r = await backend.call(MemoryReflect, {
      agentId: args.agent_id,
      action: args.action,
      factId: args.fact_id,
      ...(args.action === 'update' && args.content !== undefined ? { content: args.content } : {}),
    });
    const out: MemoryReflectOutput = { action: r.action, agent: args.agent_id, ok: true };
    return success<MemoryReflectOutput>(out, reflectProse(out, args.fact_id));
  },
});
