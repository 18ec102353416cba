import { DaemonError, DaemonErrorCodes, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type BatchOp, type Db, type Sublevels, guard } from './db.js';
import { rebuildDedup } from './dedup-build.js';
import { LayoutVersion, STAMP_PREFIX } from './keys.js';
import { unseal } from './record-seal.js';
import type { SealedSublevel } from './sealed-sublevel.js';

/** The layout before values were sealed (record-seal.ts). */
const UNSEALED_LAYOUT = '1';
/** The layout whose dedup entries listed a text's facts in one value (keys.ts). */
const DEDUP_ENTRIES_LAYOUT = '2';
/** Entries read per round trip while sealing. */
const READ_CHUNK = 256;
/** A sealing batch is written once it holds this many bytes (checkpoints reach 1 MiB each). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** A progress line every this many records. */
const PROGRESS_EVERY = 100_000;

/**
 * Checks (or, in a new store, writes) the layout version, so that a store
 * written by an incompatible release is refused rather than misread, and
 * brings a store of an older layout to this one in place: layout 1 is
 * sealed, and the dedup entries of layouts 1 and 2 are rewritten as one
 * key per claim. `created` says the store was absent or empty before this
 * open: only then may the layout be missing.
 */
export async function checkLayout(db: Db, subs: Sublevels, sync: boolean, created: boolean, logger: Logger): Promise<void> {
  const stored = await guard('read the store layout', () => subs.meta.raw.get('layout'));
  if (stored === undefined) {
    if (!created) {
      throw new DaemonError(DaemonErrorCodes.StoreDamaged, 'the store holds files but no layout record; run memoryd --repair (it copies the store first)');
    }
    await writeLayout(db, subs, sync);
    return;
  }
  if (stored === UNSEALED_LAYOUT) {
    await sealLayout1(db, subs, logger);
    await rewriteDedup(db, subs, logger);
    await writeLayout(db, subs, sync);
    return;
  }
  const found = subs.meta.open('layout', stored);
  if (found === DEDUP_ENTRIES_LAYOUT) {
    await rewriteDedup(db, subs, logger);
    await writeLayout(db, subs, sync);
    return;
  }
  if (found !== LayoutVersion) {
    throw storageError('cannot use the store', new Error(`store layout ${found} is not supported (expected ${LayoutVersion})`));
  }
}

function writeLayout(db: Db, subs: Sublevels, sync: boolean): Promise<void> {
  const op: BatchOp = { type: 'put', key: subs.meta.fullKey('layout'), value: subs.meta.seal('layout', LayoutVersion) };
  return guard('write the store layout', () => db.batch([op], { sync }));
}

/**
 * The dedup entries of a layout 1 or 2 store (one value per text, listing
 * its facts) rewritten as layout 3's one key per claim: dropped, then
 * made again from the current facts (dedup-build.ts). The layout record
 * is written after, so a crash part-way leaves the old layout, and the
 * next open starts this again from the facts.
 */
async function rewriteDedup(db: Db, subs: Sublevels, logger: Logger): Promise<void> {
  const started = Date.now();
  logger.info('rewriting the dedup entries as one key per fact (store layout 3)');
  await guard('drop the dedup entries', () => subs.dedup.clear());
  await rebuildDedup(db, subs);
  logger.info('dedup entries rewritten', { ms: Date.now() - started });
}

/**
 * Seals every record of a layout-1 store (but its dedup entries, which
 * rewriteDedup makes anew). The search data is dropped first (its version
 * record and stamps, then the entries of the old LevelDB index) and
 * redone afterwards by ensureIndex and ensureStamps, sealed as it is
 * written; the caller writes the layout record last. A crash part-way
 * leaves layout 1 with some values sealed: the next open seals the rest,
 * leaving sealed values as they are (a layout-1 value never begins as a
 * sealed one does).
 */
async function sealLayout1(db: Db, subs: Sublevels, logger: Logger): Promise<void> {
  const started = Date.now();
  logger.info('sealing the store: a checksum for every record (layout 1 to 2)');
  await guard('drop the search index', async () => {
    // Stamps (store/level/index-images.ts) are given again, sealed, by ensureStamps.
    const ops: BatchOp[] = [{ type: 'del', key: subs.meta.fullKey('index') }];
    const stamps = subs.meta.raw.iterator({ gte: STAMP_PREFIX, lt: `${STAMP_PREFIX}\uffff` });
    try {
      for (let chunk = await stamps.nextv(READ_CHUNK); chunk.length > 0; chunk = await stamps.nextv(READ_CHUNK)) {
        for (const [key] of chunk) ops.push({ type: 'del', key: subs.meta.fullKey(key) });
      }
    } finally {
      await stamps.close();
    }
    await db.batch(ops, { sync: false });
    await Promise.all([subs.post.clear(), subs.term.clear(), subs.surf.clear()]);
  });
  let records = 0;
  for (const sublevel of [subs.fact, subs.hist, subs.ckpt, subs.stats]) {
    records += await sealSublevel(db, sublevel, (n) => {
      const total = records + n;
      if (total % PROGRESS_EVERY === 0) logger.info('sealing the store', { records: total, ms: Date.now() - started });
    });
  }
  logger.info('store sealed', { records, ms: Date.now() - started });
}

/** Seals every unsealed value of one sublevel; returns how many it sealed. */
async function sealSublevel(db: Db, sublevel: SealedSublevel, progress: (n: number) => void): Promise<number> {
  const iterator = sublevel.raw.iterator({});
  let sealed = 0;
  let ops: BatchOp[] = [];
  let bytes = 0;
  const flush = async () => {
    if (ops.length > 0) await guard('seal records', () => db.batch(ops, { sync: false }));
    ops = [];
    bytes = 0;
  };
  try {
    for (;;) {
      const chunk = await guard(`read ${sublevel.name} records to seal`, () => iterator.nextv(READ_CHUNK));
      if (chunk.length === 0) break;
      for (const [key, value] of chunk) {
        const fullKey = sublevel.fullKey(key);
        if (unseal(fullKey, value) !== undefined) continue;
        ops.push({ type: 'put', key: fullKey, value: sublevel.seal(key, value) });
        bytes += key.length + value.length;
        progress(++sealed);
      }
      if (bytes >= BATCH_BYTES) await flush();
    }
    await flush();
  } finally {
    await guard('close an iterator', () => iterator.close());
  }
  return sealed;
}
