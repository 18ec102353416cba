import { Type } from '@sinclair/typebox';
import { Limits } from '../limits.js';
import { defineMethod } from '../method.js';
import { AgentId, PageAfter, PageNext, Content, FilterParams, Limit, Query, Tag, Tags, Timestamp, Ulid } from '../schemas/primitives.js';
import { Fact, FactVersion, TagCount } from '../schemas/records.js';

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

/**
 * Searches the agent's current facts: any query word, best (BM25) first.
 * With filters (capability `filters`), the best `limit` of the facts that
 * pass them: exact, never a filtered top-k.
 */
export const MemorySearch = defineMethod(
  'memory.search',
  Type.Object({
    agentId: AgentId,
    query: Query,
    limit: Type.Optional(Limit),
    ...FilterParams,
  }),
  Type.Object({
    facts: Type.Array(Fact, { description: 'Best first; each with its score.' }),
  }),
  'Current facts matching any query word, ranked by BM25 over content and tags, best first.',
);

/**
 * `order` of `memory.list`: by id, oldest first (the default) or newest
 * first (capability `listOrder`); `after` and `next` continue in it.
 * @since 1
 */
const ListOrder = Type.Union([Type.Literal('oldest'), Type.Literal('newest')], {
  description:
    'oldest (the default): oldest first; newest: newest first. Pages continue in the order asked: with newest, the page after `after` holds the facts older than it.',
});

/**
 * Pages through the agent's current facts, oldest first, or newest first
 * with `order: 'newest'` (capability `listOrder`); with filters, only
 * those that pass.
 */
export const MemoryList = defineMethod(
  'memory.list',
  Type.Object({
    agentId: AgentId,
    after: Type.Optional(PageAfter),
    limit: Type.Optional(Limit),
    order: Type.Optional(ListOrder),
    ...FilterParams,
  }),
  Type.Object({
    facts: Type.Array(Fact, { description: 'In the order asked: oldest first unless order is newest.' }),
    next: Type.Optional(PageNext),
  }),
  'Current facts, oldest first (or newest first with order: newest), a page at a time.',
);

/**
 * Updates or deletes a current fact. Update stores the new version (new
 * text, new tags or both) as a new fact that supersedes the old one (kept
 * as history); delete removes the fact from search and list. `tags`
 * replaces the tags (capability `history`); without it the old tags stay.
 */
export const MemoryReflect = defineMethod(
  'memory.reflect',
  Type.Object({
    agentId: AgentId,
    action: Type.Union([Type.Literal('update'), Type.Literal('delete')]),
    factId: Ulid,
    content: Type.Optional(Content),
    tags: Type.Optional(
      Type.Array(Tag, { maxItems: Limits.tagsMaxItems, description: 'Update only: the new version\'s tags, replacing the old ones ([] removes them all). At most 32.' }),
    ),
  }),
  Type.Object({
    action: Type.Union([Type.Literal('update'), Type.Literal('delete')]),
    factId: Ulid,
    supersededBy: Type.Optional(Ulid),
  }),
  'Updates (content, tags or both; returns supersededBy, the new fact) or deletes a current fact.',
);

/**
 * Every version of a fact (capability `history`): the versions that led to
 * the one asked for and those that followed it, oldest first.
 */
export const MemoryHistory = defineMethod(
  'memory.history',
  Type.Object({
    agentId: AgentId,
    factId: Ulid,
  }),
  Type.Object({
    versions: Type.Array(FactVersion, { description: 'Oldest first: the whole chain through factId, ending at the current version or the deleted one.' }),
  }),
  'Every version of a fact, oldest first, whether factId is current, superseded or deleted.',
);

/** The agent's tags with how many current facts carry each (capability `filters`). */
export const MemoryTags = defineMethod(
  'memory.tags',
  Type.Object({
    agentId: AgentId,
  }),
  Type.Object({
    tags: Type.Array(TagCount, { description: 'Most used first, then by tag.' }),
  }),
  'The tags of the agent\'s current facts, normalised, with how many facts carry each.',
);
