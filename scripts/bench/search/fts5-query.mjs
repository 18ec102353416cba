// The peer's query, shared by the search bench's FTS5 server
// (fts5-server.mjs) and the quality bench's FTS5 baseline
// (relevance/fts5-store.mjs), so both measure the same FTS5.

/**
 * An FTS5 query for a memoryd query: its words ORed, each quoted (so no
 * word is read as FTS5 syntax), the last one a prefix when it ends in `*`.
 * Undefined when it has no word.
 * @param {string} text
 */
export function matchExpression(text) {
  const prefix = /\*\s*$/.test(text);
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return words.map((w, i) => `"${w}"${prefix && i === words.length - 1 ? '*' : ''}`).join(' OR ');
}
