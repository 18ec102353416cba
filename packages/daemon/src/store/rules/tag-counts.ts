import type { TagCount } from '@memoryd/protocol';
import { compareCodePoints } from '../../search/dictionary.js';

/** memory.tags' order, the same on every backend: most used first, then by tag in code point order. */
export function sortTagCounts(counts: TagCount[]): TagCount[] {
  return counts.sort((a, b) => b.count - a.count || compareCodePoints(a.tag, b.tag));
}
