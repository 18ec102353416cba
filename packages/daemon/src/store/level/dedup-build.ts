import { decodeFact, encodeDedupClaimants } from './codec.js';
import { type Db, type Sublevels, guard } from './db.js';
import { dedupKey, splitKey } from './keys.js';
import { contentHash } from '../rules/dedupe-key.js';
import { WriteBatch } from './stats.js';

/** Facts read per round trip. */
const CHUNK = 1000;

/**
 * Writes the dedup entries of every current fact into an empty `dedup`
 * sublevel (after a repair removed facts, or found entries damaged). Facts
 * come in key order, agent by agent, so one agent's entries are held at a
 * time; each entry lists its facts oldest first, as adds and imports do.
 */
export async function rebuildDedup(db: Db, subs: Sublevels): Promise<void> {
  let agent: string | undefined;
  let entries = new Map<string, string[]>();
  const flush = async () => {
    const batch = new WriteBatch();
    for (const [hash, ids] of entries) batch.put(subs.dedup, dedupKey(agent!, hash), encodeDedupClaimants(ids));
    if (batch.ops.length > 0) await guard('write dedup entries', () => db.batch(batch.ops, { sync: false }));
    entries = new Map();
  };
  const iterator = subs.fact.iterator();
  try {
    for (;;) {
      const chunk = await guard('read facts', () => iterator.nextv(CHUNK));
      if (chunk.length === 0) break;
      for (const [key, text] of chunk) {
        const { agentId, rest: id } = splitKey(key);
        if (agentId !== agent) {
          if (agent !== undefined) await flush();
          agent = agentId;
        }
        const hash = contentHash(decodeFact(`fact ${id} of agent ${agentId}`, text, id).content);
        const ids = entries.get(hash);
        if (ids === undefined) entries.set(hash, [id]);
        else ids.push(id);
      }
    }
    if (agent !== undefined) await flush();
  } finally {
    await guard('close a fact iterator', () => iterator.close());
  }
}
