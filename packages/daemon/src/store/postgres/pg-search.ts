/*
 * memory.search's query as a PostgreSQL tsquery (ADR 0027): any word
 * (OR), as on LevelDB; a `*` right after the last word also matches the
 * words it begins (`postg*`). Only runs of letters and digits reach
 * to_tsquery, so nothing of the query can be read as its operators; the
 * English configuration then stems them and drops stop words.
 */

const WORD = /[\p{L}\p{N}]+/gu;

/** The tsquery text of a search (for to_tsquery('english', …)), or undefined when it has no word. */
export function searchQuery(query: string): string | undefined {
  const words = query.match(WORD);
  if (words === null) return undefined;
  const prefix = /[\p{L}\p{N}]\*\s*$/u.test(query);
  const last = words.length - 1;
  return words.map((w, i) => (i === last && prefix ? `${w}:*` : w)).join(' | ');
}
