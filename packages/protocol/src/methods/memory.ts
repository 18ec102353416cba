import { Type } from '@sinclair/typebox';
import { defineMethod } from '../method.js';
import { AgentId, PageAfter, PageNext, Content, Limit, Query, Tags, Timestamp, Ulid } from '../schemas/primitives.js';
import { Fact } from '../schemas/records.js';

/**
 * Stores a fact. Idempotent on content: when the agent already holds a
 * current fact with the same text (after NFC, case folding, trimming and
 * white-space collapsing) nothing new is stored and its id comes back with
 * `duplicate: true`. `context`, the text said just before this fact (the
 * previous turn of a conversation logged turn by turn), is stored with it
 * and searched at half weight, never returned (capability `context`).
 */
export const MemoryAdd = defineMethod(
  'memory.add',
  Type.Object({
    agentId: AgentId,
    content: Content,
    tags: Type.Optional(Tags),
    context: Type.Optional({
      ...Content,
      description:
        'What was said just before this fact, such as the previous turn of a conversation: search also finds the fact by these words, at half weight. Stored with the fact, never returned. 1-16384 bytes of UTF-8.',
    } as typeof Content),
  }),
  Type.Object({
    factId: Ulid,
    createdAt: Timestamp,
    duplicate: Type.Optional(Type.Literal(true)),
  }),
  'Stores a fact; adding text the agent already holds returns the existing id with duplicate: true.',
);

/** Searches the agent's current facts: any query word, best (BM25) first. */
export const MemorySearch = defineMethod(
  'memory.search',
  Type.Object({
    agentId: AgentId,
    query: Query,
    limit: Type.Optional(Limit),
  }),
  Type.Object({
    facts: Type.Array(Fact, { description: 'Best first; each with its score.' }),
  }),
  'Current facts matching any query word, ranked by BM25 over content and tags, best first.',
);

/** Pages through the agent's current facts, oldest first. */
export const MemoryList = defineMethod(
  'memory.list',
  Type.Object({
    agentId: AgentId,
    after: Type.Optional(PageAfter),
    limit: Type.Optional(Limit),
  }),
  Type.Object({
    facts: Type.Array(Fact),
    next: Type.Optional(PageNext),
  }),
  'Current facts, oldest first, a page at a time.',
);

/**
 * Updates or deletes a current fact. Update stores the new text as a new
 * fact that supersedes the old one (kept as history); delete removes the
 * fact from search and list.
 */
export const MemoryReflect = defineMethod(
  'memory.reflect',
  Type.Object({
    agentId: AgentId,
    action: Type.Union([Type.Literal('update'), Type.Literal('delete')]),
    factId: Ulid,
    content: Type.Optional(Content),
  }),
  Type.Object({
    action: Type.Union([Type.Literal('update'), Type.Literal('delete')]),
    factId: Ulid,
    supersededBy: Type.Optional(Ulid),
  }),
  'Updates (content required; returns supersededBy, the new fact) or deletes a current fact.',
);
