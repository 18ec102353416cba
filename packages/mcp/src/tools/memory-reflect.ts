import { AgentId, Content, Limits, MemoryReflect, Tag, Ulid } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { invalidArguments } from '../args.js';
import { publishUnion } from '../schema.js';
import { defineTool, failure, quote, success } from './tool.js';

const Action = (description: string) => Type.Union([Type.Literal('update'), Type.Literal('delete')], { description });

/** Input of `memory_reflect`. */
export const MemoryReflectInput = Type.Object({
  agent_id: AgentId,
  action: Action('"update" replaces the fact\'s text with content, its tags with tags, or both; "delete" forgets the fact.'),
  fact_id: Type.String({ pattern: Ulid.pattern, description: 'Id of a current fact, from memory_search or memory_add.' }),
  // Content's rule (kept by the spread, symbol keys included), with a
  // description saying when it is needed.
  content: Type.Optional({
    ...Content,
    description:
      'The corrected text (for "update": content, tags or both are required; ignored for "delete"): 1-16384 bytes of UTF-8, not only white space; no U+0000 and no unpaired surrogate.',
  } as typeof Content),
  tags: Type.Optional(
    Type.Array(Tag, {
      maxItems: Limits.tagsMaxItems,
      description: 'For "update": the new tags, replacing the old ones ([] removes them all); without it the tags stay. At most 32. Ignored for "delete".',
    }),
  ),
});

const Agent = Type.String({ description: 'The agent id the call was for, as given.' });
const Ok = Type.Literal(true, { description: 'Always true: the change is stored.' });
const FactIdOut = (description: string) => Type.String({ pattern: Ulid.pattern, description });

/** `structuredContent` of an update: the new version's id, and the id it replaced. */
export const MemoryReflectUpdated = Type.Object(
  {
    action: Type.Literal('update', { description: 'The fact was updated.' }),
    agent: Agent,
    ok: Ok,
    fact_id: FactIdOut('Id of the new version: the current fact now; pass it to a later memory_reflect.'),
    superseded_id: FactIdOut('Id of the version it replaced (the fact_id the call gave), kept as history.'),
  },
  { description: 'The fact was updated: its new version is a new fact.' },
);

/** `structuredContent` of a delete. */
export const MemoryReflectDeleted = Type.Object(
  {
    action: Type.Literal('delete', { description: 'The fact was deleted.' }),
    agent: Agent,
    ok: Ok,
    fact_id: FactIdOut('Id of the deleted fact, kept as history.'),
  },
  { description: 'The fact was deleted.' },
);

/** Typed `structuredContent` of `memory_reflect`, one type per action. */
export type MemoryReflectOutput = Static<typeof MemoryReflectUpdated> | Static<typeof MemoryReflectDeleted>;

/** The pinned prose of a reflect: the fact the call named. */
export function reflectProse(action: 'update' | 'delete', agent: string, factId: string): string {
  return `Applied ${action} to fact ${factId} for agent ${quote(agent)}.`;
}

/** `memory_reflect`: `memory.reflect` with snake_case in and out. */
export const memoryReflectTool = defineTool({
  name: 'memory_reflect',
  title: 'Correct or forget a fact',
  description:
    "Correct or remove a fact in an agent's long-term memory. Use it when a remembered fact turns out " +
    'wrong or outdated (action "update" with the new content, new tags, or both) or should be forgotten (action "delete"); ' +
    'get the fact_id from memory_search first. The old text is kept as history but no longer found by ' +
    'memory_search. Returns the applied action; an update also returns the new version\'s fact_id, which ' +
    'later calls use (the old id is then history).',
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  input: MemoryReflectInput,
  outputSchema: publishUnion('The applied change, by action: an update gives the new version\'s fact_id and the superseded_id it replaced; a delete gives the fact_id.', [
    MemoryReflectUpdated,
    MemoryReflectDeleted,
  ]),
  async run(args, { backend }) {
    // Checked here, like every other argument, so the agent reads which of
    // its own arguments is wrong rather than a daemon error.
    if (args.action === 'update' && args.content === undefined && args.tags === undefined) {
      return failure(invalidArguments('content', 'is required when action is "update" without tags'));
    }
    const r = await backend.call(MemoryReflect, {
      agentId: args.agent_id,
      action: args.action,
      factId: args.fact_id,
      ...(args.action === 'update' && args.content !== undefined ? { content: args.content } : {}),
      ...(args.action === 'update' && args.tags !== undefined ? { tags: args.tags } : {}),
    });
    const prose = reflectProse(r.action, args.agent_id, args.fact_id);
    if (r.action === 'update') {
      // The daemon's factId is the old fact and supersededBy the new one (docs/protocol.md "memory.reflect").
      if (r.supersededBy === undefined) throw new Error('memory.reflect update answered without supersededBy');
      return success<MemoryReflectOutput>({ action: 'update', agent: args.agent_id, ok: true, fact_id: r.supersededBy, superseded_id: r.factId }, prose);
    }
    return success<MemoryReflectOutput>({ action: 'delete', agent: args.agent_id, ok: true, fact_id: r.factId }, prose);
  },
});
