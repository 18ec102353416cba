import { createHash } from 'node:crypto';

/**
 * The form under which DESIGN.md calls two facts "the same text": Unicode
 * NFC, case folded, trimmed, runs of white space collapsed to one space.
 * Case folding is approximated by upper- then lower-casing, which folds
 * what plain lower-casing misses (`ß` and `SS` → `ss`, `ς` and `σ` → `σ`);
 * NFC runs again because case mapping can leave text unnormalised.
 */
export function normalizeContent(content: string): string {
  return content
    .normalize('NFC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFC')
    .trim()
    .replace(/\s+/gu, ' ');
}

/** sha256 (hex) of the normalised content: the dedup index's key part. */
export function contentHash(content: string): string {
  return createHash('sha256').update(normalizeContent(content), 'utf8').digest('hex');
}
