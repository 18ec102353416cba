import { hash } from 'node:crypto';
import { normalForm } from '../../search/normal-form.js';

/**
 * sha256 (hex) of the content in the form under which docs/protocol.md
 * (`memory.add`) calls two facts "the same text" (search/normal-form.ts):
 * the dedup index's key part.
 */
export function contentHash(content: string): string {
  // crypto.hash: the one-shot form, without a Hash object per fact (Node 20.12+).
  return hash('sha256', normalForm(content), 'hex');
}
