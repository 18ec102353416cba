import type { Logger } from '../../logger.js';
import { ANALYSIS_VERSION } from '../../search/analyze.js';
import { type AgentStats, decodeFact, encodeStats } from './codec.js';
import { type Db, type Sublevels, guard } from './db.js';
import { docTerms } from '../../search/doc-terms.js';
import { STAMP_PREFIX, splitKey, stampKey, statsKey } from './keys.js';
import { WriteBatch } from './write-batch.js';

/**
 * What `!meta!index` holds once the store matches this daemon's search:
 * no postings in LevelDB (the index lives in memory, store/level/search-indexes.ts),
 * and each agent's summed length as this analysis counts it. A store of an
 * earlier version still holds the posting sublevels (post, term, surf) of
 * the LevelDB index, which are cleared.
 */
export const IndexVersion = `in memory 1, analysis ${ANALYSIS_VERSION}`;

/** Facts indexed per batch while rebuilding. */
const CHUNK = 2000;
/** A progress line every this many facts. */
const PROGRESS_EVERY = 100_000;

/**
 * Makes sure the store's search data was made by this version and
 * analysis, redoing it from the facts otherwise (a store of an earlier
 * layout, or after an analysis change): clears the old posting sublevels,
 * recounts every agent's statistics (the summed length depends on the
 * analysis), and only then records the version, so a crash part-way
 * simply does it again at the next start. Runs before the daemon serves
 * anything.
 */
export async function ensureIndex(db: Db, subs: Sublevels, sync: boolean, logger: Logger): Promise<void> {
  const found = await guard('read the index version', () => subs.meta.get('index'));
  if (found === IndexVersion) return;
  const started = Date.now();
  // A new store has nothing to recount: saying so at info would read as an upgrade at every first start.
  const fresh = found === undefined && (await isEmpty(subs));
  if (fresh) logger.debug('setting up the search statistics of a new store', { version: IndexVersion });
  else logger.info('recounting the search statistics', { found: found ?? null, version: IndexVersion });
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
      for (const [key, text] of entries) {
        const { agentId, rest: id } = splitKey(key);
        const fact = decodeFact(`fact ${id} of agent ${agentId}`, text, id);
        const s = statsOf(agentId);
        s.facts += 1;
        s.length += docTerms(fact).length;
      }
      const before = facts;
      facts += entries.length;
      if (Math.floor(facts / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) {
        logger.info('recounting the search statistics', { facts, ms: Date.now() - started });
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
  if (!fresh) logger.info('search statistics recounted', { facts, agents: stats.size, ms: Date.now() - started });
}

/** Whether the store holds no fact, current or past, and no checkpoint. */
async function isEmpty(subs: Sublevels): Promise<boolean> {
  for (const sublevel of [subs.fact, subs.hist, subs.ckpt]) {
    const iterator = sublevel.iterator({ limit: 1 });
    try {
      if ((await guard(`read the ${sublevel.name} records`, () => iterator.nextv(1))).length > 0) return false;
    } finally {
      await guard('close an iterator', () => iterator.close());
    }
  }
  return true;
}

/**
 * Every agent's stamp (`!meta!stamp:<agentId>`, rewritten by every batch
 * that changes its facts: what an index image must match), giving one to
 * each of `agents` (those with counters) that has none (a store of an
 * earlier version).
 */
export async function ensureStamps(db: Db, subs: Sublevels, sync: boolean, newStamp: () => string, agents: Iterable<string>): Promise<Map<string, string>> {
  const stamps = new Map<string, string>();
  const entries = await guard('read the index stamps', () => subs.meta.iterator({ gte: STAMP_PREFIX, lt: `${STAMP_PREFIX}\uffff` }).all());
  for (const [key, stamp] of entries) stamps.set(key.slice(STAMP_PREFIX.length), stamp);
  const missing = new WriteBatch();
  for (const agentId of agents) {
    if (stamps.has(agentId)) continue;
    const stamp = newStamp();
    stamps.set(agentId, stamp);
    missing.put(subs.meta, stampKey(agentId), stamp);
  }
  if (missing.ops.length > 0) await guard('write the index stamps', () => db.batch(missing.ops, { sync }));
  return stamps;
}
