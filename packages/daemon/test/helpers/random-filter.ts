/** The filters of memory.search and memory.list, as the conformance suites draw them. */
export interface DrawnFilter {
  tags?: string[];
  since?: string;
  until?: string;
}

/** A time `day` days (fractional) after 2026-01-01, as RFC 3339. */
function iso(day: number): string {
  return new Date(Date.parse('2026-01-01T00:00:00.000Z') + day * 86_400_000).toISOString();
}

/**
 * A random filter over facts written in the 60 days from 2026-01-01: one
 * or two tags `pick`ed from `tags` (6 times in 10), a `since` (1 in 2) and
 * an `until` (1 in 2, dropped when before `since`).
 */
export function randomFilter(rand: () => number, pick: <T>(items: readonly T[]) => T, tags: readonly string[]): DrawnFilter {
  const p: DrawnFilter = {};
  if (rand() < 0.6) p.tags = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(tags));
  if (rand() < 0.5) p.since = iso(rand() * 60);
  if (rand() < 0.5) p.until = iso(rand() * 60 + 10);
  if (p.since !== undefined && p.until !== undefined && p.until < p.since) delete p.until;
  return p;
}
