import { timeBoundMs } from '@memoryd/protocol';
import { invalidParams } from '../../errors.js';
import type { IndexFilter } from '../../search/filter-mask.js';
import { tagKeys } from '../../search/normal-form.js';
import type { StoredFact } from '../stored-records.js';

/*
 * The filters of memory.search and memory.list (docs/protocol.md,
 * "Filters"), the same on every backend (ADR 0038): `tags` passes a fact
 * carrying every one of them, compared in normal form; `since` and `until`
 * bound its `createdAt`, the time its current version was written, since
 * inclusive and until exclusive.
 */

/** The filter params of a search or a list. */
export interface FilterParams {
  tags?: string[] | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/**
 * The filter `p` asks for, as the index applies it, or undefined when it
 * asks for none. InvalidParams when `until` is before `since`.
 */
export function factFilter(p: FilterParams): IndexFilter | undefined {
  if (p.tags === undefined && p.since === undefined && p.until === undefined) return undefined;
  const filter: { tags?: string[]; since?: number; until?: number } = {};
  if (p.tags !== undefined) filter.tags = tagKeys(p.tags);
  // The schema checked them: each is an instant.
  if (p.since !== undefined) filter.since = timeBoundMs(p.since)!;
  if (p.until !== undefined) filter.until = timeBoundMs(p.until)!;
  if (filter.since !== undefined && filter.until !== undefined && filter.until < filter.since) {
    throw invalidParams('until', `must not be before since (${p.since})`);
  }
  return filter;
}

/** Whether a stored fact passes `filter` (what the index's mask says of it, from its fields). */
export function passesFilter(filter: IndexFilter, fact: StoredFact): boolean {
  const at = Date.parse(fact.createdAt);
  if (filter.since !== undefined && at < filter.since) return false;
  if (filter.until !== undefined && !(at < filter.until)) return false;
  if (filter.tags === undefined || filter.tags.length === 0) return true;
  const held = new Set(tagKeys(fact.tags));
  return filter.tags.every((t) => held.has(t));
}
