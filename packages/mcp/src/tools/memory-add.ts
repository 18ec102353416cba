import { AgentId, Content, MemoryAdd, Tags } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { publishSchema } from '../schema.js';
import { AgentIdOut, IdOut } from './common.js';
import { defineTool, quote, success } from './tool.js';

/** Input of `memory_add`. */
export const MemoryAddInput = Type.Object({
  agent_id: AgentId,
  content: Content,
  tags: Type.Optional(Tags),
  // Content's rule (kept by the spread, symbol keys included), with a description of its own.
  context: Type.Optional({
    ...Content,
    description:
      'Optional: what was said just before this fact, such as the previous turn when saving a conversation turn by turn. memory_search also finds the fact by these words (at half weight); never returned.',
  } as typeof Content),
});

/** `structuredContent` of `memory_add`. */
export const MemoryAddOutput = Type.Object(
  {
    agent_id: AgentIdOut,
    stored: Type.Literal(true, { description: 'Always true: the fact is in memory (stored now, or already held).' }),
    fact_id: IdOut('Id of the fact: the new one, or the existing one when duplicate is true.'),
    duplicate: Type.Optional(
      Type.Literal(true, {
        description: 'Present (true) only when the agent already held this fact: nothing new was stored.',
      }),
    ),
  },
  { description: 'The stored fact.' },
);
/** Typed `structuredContent` of `memory_add`. */
export type MemoryAddOutput = Static<typeof MemoryAddOutput>;

/** The pinned prose of an add (the same for a duplicate). */
export function addProse(out: MemoryAddOutput): string {
  return `Stored fact ${out.fact_id} for agent ${quote(out.agent_id)}.`;
}

/** `memory_add`: `memory.add` with snake_case in and out. */
export const memoryAddTool = defineTool({
  name: 'memory_add',
  title: 'Remember a fact',
  description:
    "Store one fact in an agent's long-term memory, so later sessions can find it with memory_search. " +
    'Use it when the user states a preference, a decision, a correction or anything worth remembering; ' +
    'store one self-contained statement per call, optionally with tags. Safe to retry: adding text the ' +
    'agent already holds (ignoring case and spacing) stores nothing new. Returns the fact id, with ' +
    'duplicate: true when the fact was already known. To change or remove a fact, use memory_reflect.',
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: MemoryAddInput,
  outputSchema: publishSchema(MemoryAddOutput),
  async run(args, { backend }) {
    const r = await backend.call(MemoryAdd, {
      agentId: args.agent_id,
      content: args.content,
      ...(args.tags !== undefined ? { tags: args.tags } : {}),
      ...(args.context !== undefined ? { context: args.context } : {}),
    });
    const out: MemoryAddOutput = {
      agent_id: args.agent_id,
      stored: true,
      fact_id: r.factId,
      ...(r.duplicate === true ? { duplicate: true as const } : {}),
    };
    return success<MemoryAddOutput>(out, addProse(out));
  },
});
