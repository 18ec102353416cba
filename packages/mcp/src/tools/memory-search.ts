import { AgentId, FilterTags, Limit, MemorySearch, Query, Since, Until } from '@memoryd/protocol';
import { type Static, Type } from '@sinclair/typebox';
import { publishSchema } from '../schema.js';
import { AgentIdOut, IdOut, TimeOut } from './common.js';
import { defineTool, quote, success } from './tool.js';

/** Input of `memory_search`. */
export const MemorySearchInput = Type.Object({
  agent_id: AgentId,
  query: Query,
  limit: Type.Optional(Limit),
  tags: Type.Optional(FilterTags),
  since: Type.Optional(Since),
  until: Type.Optional(Until),
});

/** One fact of a search result. */
export const SearchHit = Type.Object(
  {
    id: IdOut('Fact id: pass it to memory_reflect to update or delete the fact.'),
    content: Type.String({ description: 'The fact, in full.' }),
    created_at: TimeOut('When the fact was stored (RFC 3339 UTC).'),
    score: Type.Number({
      description:
        'Relevance; higher is better, facts come best first. By words, BM25; with meaning search on (the daemon runs an embedder), ' +
        'the fused score from 0 to 1, where 0 means neither the words nor the meaning single the fact out.',
    }),
    tags: Type.Optional(Type.Array(Type.String({ description: 'A tag.' }), { description: 'Tags of the fact; absent when it has none.' })),
  },
  { description: 'A fact matching the query.' },
);

/** `structuredContent` of `memory_search`. */
export const MemorySearchOutput = Type.Object(
  {
    agent_id: AgentIdOut,
    query: Type.String({ description: 'The query, as given.' }),
    tags: Type.Optional(Type.Array(Type.String({ description: 'A tag.' }), { description: 'The tags filter, as given; absent when none was.' })),
    since: Type.Optional(Type.String({ description: 'The since filter, as given; absent when none was.' })),
    until: Type.Optional(Type.String({ description: 'The until filter, as given; absent when none was.' })),
    count: Type.Integer({ minimum: 0, description: 'How many facts came back (0 when none match).' }),
    facts: Type.Array(SearchHit, { description: 'Matching facts, best first; empty when none match.' }),
  },
  { description: 'The facts matching the query, best first.' },
);
/** Typed `structuredContent` of `memory_search`. */
export type MemorySearchOutput = Static<typeof MemorySearchOutput>;

/** The filters of a search in words: ` tagged "a", "b" since X until Y`, or nothing. */
function filterWords(out: MemorySearchOutput): string {
  let words = '';
  if (out.tags !== undefined) words += ` tagged ${out.tags.map(quote).join(', ')}`;
  if (out.since !== undefined) words += ` since ${out.since}`;
  if (out.until !== undefined) words += ` until ${out.until}`;
  return words;
}

/** The pinned prose of a search result (docs/api-stability.md "MCP tools"). */
export function searchProse(out: MemorySearchOutput): string {
  const who = `for agent ${quote(out.agent_id)} matching ${quote(out.query)}${filterWords(out)}`;
  if (out.count === 0) return `No facts found ${who}.`;
  const head = `Found ${out.count} ${out.count === 1 ? 'fact' : 'facts'} ${who}:`;
  return [head, ...out.facts.map((f, i) => `${i + 1}. [${f.id}] ${f.content}`)].join('\n');
}

/** `memory_search`: `memory.search` with snake_case in and out. */
export const memorySearchTool = defineTool({
  name: 'memory_search',
  title: 'Search memory',
  description:
    "Search an agent's long-term memory for facts relevant to a query. Use it before answering or " +
    'acting on anything the agent may have learned earlier (preferences, decisions, names, project facts), ' +
    'and before memory_add to avoid storing what is already known. Matches any word of the query and ranks ' +
    'facts matching more and rarer words first; words match whole, and a * ending the last word (postg*) also ' +
    'matches the words it begins. Returns up to `limit` (default 10) current facts, best first, ' +
    'each with its id, full content, creation time, score and tags; none matching is a normal, empty result. ' +
    'With meaning search on, facts close in meaning are found too, and up to `limit` facts come back even when none ' +
    'matches well: read a score of 0 as "nothing singles this fact out". ' +
    'Optional filters narrow it to facts carrying every one of `tags` (compared ignoring case and spacing), ' +
    'written at or after `since` and before `until` (RFC 3339 times, such as 2026-12-01T00:00:00Z); ' +
    'the best facts among those that pass come back.',
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: MemorySearchInput,
  outputSchema: publishSchema(MemorySearchOutput),
  async run(args, { backend }) {
    const filters = {
      ...(args.tags !== undefined ? { tags: args.tags } : {}),
      ...(args.since !== undefined ? { since: args.since } : {}),
      ...(args.until !== undefined ? { until: args.until } : {}),
    };
    const r = await backend.call(MemorySearch, {
      agentId: args.agent_id,
      query: args.query,
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      ...filters,
    });
    const out: MemorySearchOutput = {
      agent_id: args.agent_id,
      query: args.query,
      ...filters,
      count: r.facts.length,
      facts: r.facts.map((f) => ({
        id: f.id,
        content: f.content,
        created_at: f.createdAt,
        // The protocol gives every search hit a score; 0 only guards an
        // out-of-contract daemon from producing a schema-invalid result.
        score: f.score ?? 0,
        ...(f.tags !== undefined ? { tags: f.tags } : {}),
      })),
    };
    return success<MemorySearchOutput>(out, searchProse(out));
  },
});
