import { decodeFact } from './codec.js';
import { type Db, type Sublevels, guard } from './db.js';
import { dedupKey, splitKey } from './keys.js';
import { contentHash } from '../rules/dedupe-key.js';
import { WriteBatch } from './write-batch.js';

/** Facts read per round trip. */
const CHUNK = 1000;

/** What a claim key holds (dedup.ts). */
const CLAIM = '1';

/**
 * Writes the dedup claim of every current fact into an empty `dedup`
 * sublevel (after a repair removed facts or found entries damaged, or at
 * the upgrade of a layout-2 store), a batch per chunk of facts.
 */
export async function rebuildDedup(db: Db, subs: Sublevels): Promise<void> {
  const iterator = subs.fact.iterator();
  try {
    for (;;) {
      const chunk = await guard('read facts', () => iterator.nextv(CHUNK));
      if (chunk.length === 0) break;
      const batch = new WriteBatch();
      for (const [key, text] of chunk) {
        const { agentId, rest: id } = splitKey(key);
        const hash = contentHash(decodeFact(`fact ${id} of agent ${agentId}`, text, id).content);
        batch.put(subs.dedup, dedupKey(agentId, hash, id), CLAIM);
      }
      await guard('write dedup entries', () => db.batch(batch.ops, { sync: false }));
    }
  } finally {
    await guard('close a fact iterator', () => iterator.close());
  }
}
