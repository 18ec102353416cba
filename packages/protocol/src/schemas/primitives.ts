import { Type } from '@sinclair/typebox';
import { Limits } from '../limits.js';
import { State, Text } from './kinds.js';
import { TimeBound } from './time-bound.js';

/**
 * An agent's id: 1–128 characters of `[A-Za-z0-9._:@-]`, case-sensitive
 * (`A` and `a` are two agents).
 */
export const AgentId = Type.String({
  minLength: 1,
  maxLength: Limits.agentIdMaxLength,
  pattern: Limits.agentIdPattern,
  description: 'Agent id: 1-128 characters of A-Z a-z 0-9 . _ : @ -; case-sensitive.',
});

/** A ULID: 26 characters of Crockford base 32, time-sortable. */
export const Ulid = Type.String({
  // The first character is 0-7: 48 bits of milliseconds fill 10 base-32
  // digits with 2 bits to spare, so 8-Z would overflow the timestamp.
  pattern: '^[0-7][0-9A-HJKMNP-TV-Z]{25}$',
  description: 'ULID: 26 characters of Crockford base 32; sorts by creation time.',
});

/** RFC 3339 UTC with milliseconds, e.g. `2026-12-02T11:29:00.000Z`. */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\.\\d{3}Z$',
  description: 'RFC 3339 UTC time with milliseconds, e.g. 2026-12-02T11:29:00.000Z.',
});

/** A fact's text: 1–16,384 bytes of UTF-8, not only white space. */
export const Content = Text({
  min: 1,
  max: Limits.contentMaxBytes,
  unit: 'bytes',
  notBlank: true,
  stored: true,
  description: 'Fact text: 1-16384 bytes of UTF-8, not only white space; no U+0000 and no unpaired surrogate.',
});

/** One tag: 1–64 code points, not only white space. */
export const Tag = Text({
  min: 1,
  max: Limits.tagMaxCodePoints,
  unit: 'codePoints',
  notBlank: true,
  stored: true,
  description: 'Tag: 1-64 characters (code points), not only white space; no U+0000 and no unpaired surrogate.',
});

/** At most 32 tags. */
export const Tags = Type.Array(Tag, {
  maxItems: Limits.tagsMaxItems,
  description: 'At most 32 tags.',
});

/** A search query: 1–1,024 bytes of UTF-8. */
export const Query = Text({
  min: 1,
  max: Limits.queryMaxBytes,
  unit: 'bytes',
  notBlank: false,
  description: 'Search query: 1-1024 bytes of UTF-8. Words match whole; a * right after the last word (postg*) also matches the words it begins.',
});

/** Page size of search and list: 1–100, default 10. */
export const Limit = Type.Integer({
  minimum: 1,
  maximum: Limits.limitMax,
  description: 'How many items at most: 1-100, default 10.',
});

/** A checkpoint's state: a JSON object, ≤ 1 MiB as UTF-8 JSON, ≤ 64 levels deep. */
export const CheckpointState = State({
  maxBytes: Limits.stateMaxBytes,
  maxDepth: Limits.stateMaxDepth,
  description: 'Session state: a JSON object, at most 1 MiB as UTF-8 JSON, nested at most 64 levels.',
});

/** How many messages the session had when saved: integer 0–2,147,483,647. */
export const MessageCount = Type.Integer({
  minimum: 0,
  maximum: Limits.messageCountMax,
  description: 'Messages in the session when saved: integer 0-2147483647.',
});

/** `after` of a paged list: the `next` of the previous page (an id, exclusive). */
export const PageAfter = Type.String({ pattern: Ulid.pattern, description: 'The `next` of the previous page.' });

/** `next` of a paged list: present only when more items follow; pass it back as `after`. */
export const PageNext = Type.String({
  pattern: Ulid.pattern,
  description: 'Present only when more items follow; pass it back as `after`.',
});

/** `tags` of a filter: facts carrying every one of them (each compared normalised, as dedupe compares texts). */
export const FilterTags = Type.Array(Tag, {
  minItems: 1,
  maxItems: Limits.tagsMaxItems,
  description: 'Only facts carrying every one of these tags (compared after NFC, case folding, trimming and collapsing white space). 1-32 tags.',
});

/** `since` of a filter: the earliest `createdAt` that passes (inclusive). */
export const Since = TimeBound('Only facts whose current version was written at or after this RFC 3339 time (their createdAt), e.g. 2026-12-01T00:00:00Z.');

/** `until` of a filter: the first `createdAt` that no longer passes (exclusive). */
export const Until = TimeBound('Only facts whose current version was written before this RFC 3339 time (their createdAt); exclusive.');

/** The filters of `memory.search` and `memory.list` (capability `filters`), all optional and ANDed. */
export const FilterParams = {
  tags: Type.Optional(FilterTags),
  since: Type.Optional(Since),
  until: Type.Optional(Until),
};
