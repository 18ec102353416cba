// The LevelDB database and its sublevels as the store's parts share them,
// and how a failure of theirs becomes ours. Imports nothing of the store
// but the key layout, so every part can use it without a cycle.
import type { Level } from 'level';
import { DaemonError, storageError } from '../../errors.js';
import { SublevelNames } from './keys.js';
import { type RawSublevel, SealedSublevel } from './sealed-sublevel.js';

/** The root database: UTF-8 keys and values (values are JSON, see codec.ts). */
export type Db = Level<string, string>;

function openSublevel(db: Db, name: string): SealedSublevel {
  const raw = db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  return new SealedSublevel(raw as unknown as RawSublevel, name);
}

/** One sublevel of the layout in keys.ts: every value sealed, every read checked. */
export type Sublevel = SealedSublevel;

/** The sublevels of the layout in keys.ts. */
export interface Sublevels {
  meta: Sublevel;
  fact: Sublevel;
  hist: Sublevel;
  dedup: Sublevel;
  ckpt: Sublevel;
  stats: Sublevel;
  post: Sublevel;
  term: Sublevel;
  surf: Sublevel;
  vec: Sublevel;
}

/** Creates the sublevel handles of the layout. */
export function openSublevels(db: Db): Sublevels {
  return {
    meta: openSublevel(db, SublevelNames.meta),
    fact: openSublevel(db, SublevelNames.fact),
    hist: openSublevel(db, SublevelNames.hist),
    dedup: openSublevel(db, SublevelNames.dedup),
    ckpt: openSublevel(db, SublevelNames.ckpt),
    stats: openSublevel(db, SublevelNames.stats),
    post: openSublevel(db, SublevelNames.post),
    term: openSublevel(db, SublevelNames.term),
    surf: openSublevel(db, SublevelNames.surf),
    vec: openSublevel(db, SublevelNames.vec),
  };
}

/**
 * Runs a store operation, turning any failure that is not already ours
 * (level's errors) into a storage error that keeps it as the cause.
 */
export async function guard<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw storageError(what, err);
  }
}

/** {@link guard} for a synchronous read (`getSync`). */
export function readSync<T>(what: string, op: () => T): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw storageError(what, err);
  }
}

/**
 * A put or del for the root `db.batch`, its key already carrying the
 * sublevel's prefix (see WriteBatch): abstract-level's per-operation
 * sublevel handling cost ~6 µs an operation on an add's path, and the
 * stored bytes are the same.
 */
export type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };
