import { hash } from 'node:crypto';

/**
 * The form under which docs/protocol.md (`memory.add`) calls two facts
 * "the same text": Unicode NFC, case folded, trimmed, runs of white space
 * collapsed to one space.
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
  // crypto.hash: the one-shot form, without a Hash object per fact (Node 20.12+).
  return hash('sha256', normalizeContent(content), 'hex');
}
