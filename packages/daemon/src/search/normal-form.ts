/**
 * The form under which two texts are "the same" (docs/protocol.md): two
 * facts' texts for dedupe (`memory.add`), and two tags for a filter.
 * Unicode NFC, case folded, trimmed, runs of white space collapsed to one
 * space. Case folding is approximated by upper- then lower-casing, which
 * folds what plain lower-casing misses (`ß` and `SS` → `ss`, `ς` and `σ`
 * → `σ`); NFC runs again because case mapping can leave text unnormalised.
 */
export function normalForm(text: string): string {
  return text
    .normalize('NFC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFC')
    .trim()
    .replace(/\s+/gu, ' ');
}

/** A fact's tags as filters compare them: each in {@link normalForm}, once each, in their first order. */
export function tagKeys(tags: readonly string[] | undefined): string[] {
  if (tags === undefined || tags.length === 0) return [];
  return [...new Set(tags.map(normalForm))];
}
