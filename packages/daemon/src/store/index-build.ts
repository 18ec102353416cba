import type { Logger } from '../logger.js';
import { ANALYSIS_VERSION } from '../search/analyze.js';
import { type AgentStats, decodeFact, encodeStats } from './codec.js';
import { type Db, type Sublevels, guard } from './context.js';
import { IndexEdits } from './index-edits.js';
import { splitKey, statsKey } from './keys.js';
import { WriteBatch } from './stats.js';

/**
 * What `!meta!index` holds once the index matches the facts: the posting
 * layout and the analysis that produced the terms. Postings are found
 * again (to delete them) by analysing a fact's text anew, so an index
 * built by another analysis must be rebuilt before any write.
 */
export const IndexVersion = `postings 2, analysis ${ANALYSIS_VERSION}`;

/** Facts indexed per batch while rebuilding. */
const CHUNK = 2000;
/** A progress line every this many facts. */
const PROGRESS_EVERY = 100_000;

/**
 * Makes sure the search index was built by this analysis, rebuilding it
 * from the facts otherwise (a store from before the index, or after an
 * analysis change): clears the index sublevels, indexes every current
 * fact in chunks, recounts every agent's statistics, and only then records
 * the version, so a crash part-way simply rebuilds again at the next
 * start. Runs before the daemon serves anything.
 */
export async function ensureIndex(db: Db, subs: Sublevels, sync: boolean, logger: Logger): Promise<void> {
  const found = await guard('read the index version', () => subs.meta.get('index'));
  if (found === IndexVersion) return;
  const started = Date.now();
  logger.info('building the search index', { found: found ?? null, version: IndexVersion });
  await guard('clear the search index', async () => {
    await Promise.all([subs.post.clear(), subs.term.clear(), subs.surf.clear()]);
  });
  const stats = new Map<string, AgentStats>();
  const statsOf = (agentId: string) => {
    let s = stats.get(agentId);
    if (s === undefined) stats.set(agentId, (s = { facts: 0, checkpoints: 0, length: 0 }));
    return s;
  };
  let facts = 0;
  const iterator = subs.fact.iterator();
  try {
    for (;;) {
      const entries = await guard('read facts to index', () => iterator.nextv(CHUNK));
      if (entries.length === 0) break;
      const batch = new WriteBatch();
      const index = new IndexEdits(subs, batch);
      for (const [key, text] of entries) {
        const { agentId, rest: id } = splitKey(key);
        index.add(agentId, decodeFact(`fact ${id} of agent ${agentId}`, text, id));
      }
      index.flush();
      for (const [agentId, d] of batch.deltas()) {
        const s = statsOf(agentId);
        s.facts += d.facts;
        s.length += d.length;
      }
      await guard('write the search index', () => db.batch(batch.ops, { sync: false }));
      const before = facts;
      facts += entries.length;
      if (Math.floor(facts / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) {
        logger.info('building the search index', { facts, ms: Date.now() - started });
      }
    }
  } finally {
    await guard('close a fact iterator', () => iterator.close());
  }
  const checkpoints = subs.ckpt.iterator();
  try {
    for (;;) {
      const chunk = await guard('read checkpoints to count', () => checkpoints.nextv(CHUNK));
      if (chunk.length === 0) break;
      for (const [key] of chunk) statsOf(splitKey(key).agentId).checkpoints += 1;
    }
  } finally {
    await guard('close a checkpoint iterator', () => checkpoints.close());
  }
  await guard('clear agent counters', () => subs.stats.clear());
  const last = new WriteBatch();
  for (const [agentId, s] of stats) last.put(subs.stats, statsKey(agentId), encodeStats(s));
  last.put(subs.meta, 'index', IndexVersion);
  await guard('write agent counters', () => db.batch(last.ops, { sync }));
  logger.info('search index built', { facts, agents: stats.size, ms: Date.now() - started });
}
