// Reads a LevelDB store's files, never writing, before the daemon opens
// it: LevelDB 1.20 (classic-level 3, paranoid_checks off) opens some damaged
// stores without a word and loses data doing so (a corrupt log record drops
// the acknowledged writes after it; a lost CURRENT makes a new, empty
// database whose cleanup deletes the old tables). What LevelDB would refuse
// is reported too, in words a person can act on. The rules follow
// db/db_impl.cc DBImpl::Recover and RecoverLogFile.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type LogContents, readLog } from './log-reader.js';
import { type ManifestContents, type TableFile, readManifest } from './manifest.js';

/** What LevelDB leaves in a dir after an open that failed before it wrote anything. */
const LEFT_BY_FAILED_OPEN = new Set(['LOCK', 'LOG', 'LOG.old']);

/** RecoverLogFile drops smaller records: a write batch header is 12 bytes (db/write_batch.cc). */
const BATCH_HEADER_SIZE = 12;

/** Damage that LevelDB would refuse, or silently lose data over, at open. */
export interface StoreProblem {
  /** Absolute path of the file at fault (or missing). */
  file: string;
  /** One line naming the file and what is wrong, e.g. `000004.log: checksum mismatch at byte 1234, …`. */
  reason: string;
}

/** Bytes at the end of a file that LevelDB ignores: a write cut short by a crash or a failed write. */
export interface TornTail {
  /** Absolute path of the log or MANIFEST. */
  file: string;
  /** Where the ignored bytes start. */
  offset: number;
  /**
   * One line, e.g. `000004.log: truncated record at byte 300 with nothing
   * valid after it (a write cut short); LevelDB ignores the last 75 bytes`.
   */
  reason: string;
}

/** A table file the MANIFEST lists as live. */
export interface LiveTable extends TableFile {
  /** Absolute path: the .ldb, or the legacy .sst if only that exists. */
  file: string;
}

/** A log LevelDB would replay at open (numbered at or past the MANIFEST's log number). */
export interface LiveLog {
  /** Absolute path. */
  file: string;
  number: number;
  /** Write batches LevelDB would replay from it. */
  records: number;
  /** Its size in bytes. */
  bytes: number;
}

/** A store dir that holds LevelDB files, and what they say. */
export interface PresentStore {
  state: 'present';
  /** Empty when LevelDB would open the store and lose nothing but torn tails. */
  problems: StoreProblem[];
  /** Warnings: the ends of files that LevelDB ignores. */
  tornTails: TornTail[];
  /** The MANIFEST that CURRENT names, if CURRENT is readable. */
  manifest: string | null;
  tables: LiveTable[];
  logs: LiveLog[];
  /** The sequence number LevelDB would resume from: the MANIFEST's, or a replayed batch's if higher. */
  lastSequence: number | null;
}

/**
 * `absent`: no dir. `empty`: nothing but what a failed open leaves (LOCK,
 * LOG, LOG.old), so LevelDB creates a new store and loses nothing.
 */
export type StoreFiles = { state: 'absent' } | { state: 'empty' } | PresentStore;

/** db/filename.cc MakeFileName: at least six digits. */
function fileName(number: number, suffix: string): string {
  return `${String(number).padStart(6, '0')}.${suffix}`;
}

/**
 * Inspects the LevelDB store in `storeDir` without changing it. Errors
 * reading it (EACCES, EIO, a file where the dir should be) are thrown as
 * they come; only what the files say becomes a {@link StoreProblem}.
 */
export async function inspectStoreFiles(storeDir: string): Promise<StoreFiles> {
  let names: string[];
  try {
    names = await readdir(storeDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw err;
  }
  if (names.every((n) => LEFT_BY_FAILED_OPEN.has(n))) return { state: 'empty' };
  const found: PresentStore = { state: 'present', problems: [], tornTails: [], manifest: null, tables: [], logs: [], lastSequence: null };
  const manifest = await loadManifest(storeDir, new Set(names), found);
  if (manifest !== null) {
    found.lastSequence = manifest.state.lastSequence;
    await checkTables(storeDir, new Set(names), manifest, found);
    await checkLogs(storeDir, names, manifest, found);
  }
  return found;
}

/** Follows CURRENT to the MANIFEST and reads it; null (with a problem) if LevelDB could not. */
async function loadManifest(dir: string, names: Set<string>, found: PresentStore): Promise<ManifestContents | null> {
  const problem = (file: string, reason: string): null => {
    found.problems.push({ file: join(dir, file), reason });
    return null;
  };
  if (!names.has('CURRENT')) return problem('CURRENT', noCurrent(names));
  const current = (await readFile(join(dir, 'CURRENT'))).toString('latin1');
  // VersionSet::Recover: the name must end with a newline, which it strips.
  if (!current.endsWith('\n')) return problem('CURRENT', 'CURRENT does not end with a newline; LevelDB would refuse to open the store');
  const name = current.slice(0, -1);
  if (!/^MANIFEST-\d+$/.test(name)) return problem('CURRENT', `CURRENT names ${JSON.stringify(name)}, which is not a MANIFEST file name`);
  found.manifest = name;
  if (!names.has(name)) return problem(name, `CURRENT names ${name}, which does not exist; LevelDB would refuse to open the store`);
  const manifest = readManifest(await readFile(join(dir, name)));
  if (manifest.ignoredTail !== null) {
    const t = manifest.ignoredTail;
    found.tornTails.push({ file: join(dir, name), offset: t.offset, reason: tailReason(name, t.reason, t.offset, t.bytes) });
  }
  if (manifest.fault === null) return manifest;
  const outcome = manifest.fault.refused ? 'LevelDB would refuse to open the store' : 'LevelDB would open the store without those edits';
  return problem(name, `${name}: ${manifest.fault.reason}; ${outcome}`);
}

/** Why a store with files but no CURRENT must not be opened (DBImpl::Recover calls NewDB). */
function noCurrent(names: Set<string>): string {
  const others = [...names].filter((n) => !LEFT_BY_FAILED_OPEN.has(n)).sort();
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? ', …' : '');
  return `CURRENT is missing but the store holds ${others.length} other file(s) (${shown}); LevelDB would create a new, empty database here and then delete the existing tables as obsolete`;
}

/** Each live table must exist with the size the MANIFEST records (Table::Open reads its footer there). */
async function checkTables(dir: string, names: Set<string>, manifest: ManifestContents, found: PresentStore): Promise<void> {
  const from = found.manifest ?? 'the MANIFEST';
  const present = (t: { number: number }) => {
    const ldb = fileName(t.number, 'ldb');
    const sst = fileName(t.number, 'sst');
    return names.has(ldb) || !names.has(sst) ? ldb : sst;
  };
  // Every size at once: a large store lists hundreds of tables, and one
  // stat at a time cost some 50 ms of every start.
  const sizes = await Promise.all(manifest.state.tables.map((t) => (names.has(present(t)) ? stat(join(dir, present(t))).then((s) => s.size) : undefined)));
  for (const [i, t] of manifest.state.tables.entries()) {
    const ldb = fileName(t.number, 'ldb');
    const name = present(t);
    const file = join(dir, name);
    found.tables.push({ ...t, file });
    if (!names.has(name)) {
      found.problems.push({ file, reason: `${ldb}: missing, but ${from} lists it as a live table (level ${t.level}, ${t.size} bytes); LevelDB would refuse to open the store` });
      continue;
    }
    const size = sizes[i]!;
    if (size !== t.size) {
      const how = size < t.size ? 'truncated' : 'grown';
      found.problems.push({ file, reason: `${name}: ${size} bytes, but ${from} records ${t.size} (${how}); LevelDB would fail reading its keys` });
    }
  }
}

/** Reads the logs DBImpl::Recover replays: numbered at or past the log number, or the previous log. */
async function checkLogs(dir: string, names: string[], manifest: ManifestContents, found: PresentStore): Promise<void> {
  const { prevLogNumber } = manifest.state;
  const logNumber = manifest.state.logNumber ?? 0;
  // LevelDB creates a log before an edit names it and deletes it only once a later edit names
  // another, so a named log that is gone took its writes with it; LevelDB does not look.
  const named = fileName(logNumber, 'log');
  if (logNumber > 0 && !names.includes(named)) {
    const reason = `${named}: missing, but ${found.manifest ?? 'the MANIFEST'} names it as the live log; LevelDB would open the store without the writes it held`;
    found.problems.push({ file: join(dir, named), reason });
  }
  const live = names
    .map((name) => ({ name, number: Number(/^(\d+)\.log$/.exec(name)?.[1] ?? NaN) }))
    .filter(({ number }) => number >= logNumber || number === prevLogNumber)
    .sort((a, b) => a.number - b.number);
  for (const { name, number } of live) {
    const file = join(dir, name);
    const bytes = await readFile(file);
    const log = readLog(bytes);
    const batches = log.records.filter((r) => r.data.length >= BATCH_HEADER_SIZE);
    found.logs.push({ file, number, records: batches.length, bytes: bytes.length });
    for (const r of batches) found.lastSequence = Math.max(found.lastSequence ?? 0, batchLastSequence(r.data));
    checkLog(file, name, bytes.length, log, found);
  }
}

/** The sequence number of a batch's last write: its header's sequence plus its count, less one. */
function batchLastSequence(batch: Buffer): number {
  const count = batch.readUInt32LE(8);
  return count === 0 ? 0 : Number(batch.readBigUInt64LE(0)) + count - 1;
}

/** One thing a log loses at open: dropped, skipped or too small. */
interface Loss {
  offset: number;
  what: string;
  /** The rest of the problem's reason: how much LevelDB would lose. */
  loses: string;
  validRecordFollows: boolean;
}

/** Losses with valid records after them are problems; the first without is the file's torn tail. */
function checkLog(file: string, name: string, length: number, log: LogContents, found: PresentStore): void {
  const losses: Loss[] = [
    ...log.corruptions.map((c) => ({ offset: c.offset, what: c.reason, loses: `drop ${c.bytesDropped} bytes of writes there`, validRecordFollows: c.validRecordFollows })),
    ...log.records
      .filter((r) => r.data.length < BATCH_HEADER_SIZE)
      .map((r) => ({ offset: r.offset, what: `record of ${r.data.length} bytes, too small for a write batch`, loses: 'drop it', validRecordFollows: log.lastValidOffset > r.offset })),
  ];
  // One problem per log: the first drop LevelDB meets is the cause; later ones are often its echoes.
  const [first, ...more] = losses.filter((l) => l.validRecordFollows);
  if (first !== undefined) {
    const also = more.length === 0 ? '' : ` (and ${more.length} more damaged spot(s) after it)`;
    found.problems.push({ file, reason: `${name}: ${first.what} at byte ${first.offset}, with valid records after it; LevelDB would silently ${first.loses}${also}` });
  }
  const tails = losses.filter((l) => !l.validRecordFollows).map((l) => ({ offset: l.offset, what: l.what }));
  if (log.ignoredTail !== null) tails.push({ offset: log.ignoredTail.offset, what: log.ignoredTail.reason });
  const tail = tails.sort((a, b) => a.offset - b.offset)[0];
  if (tail !== undefined) found.tornTails.push({ file, offset: tail.offset, reason: tailReason(name, tail.what, tail.offset, length - tail.offset) });
}

/** The one line of a torn tail. */
function tailReason(name: string, what: string, offset: number, bytes: number): string {
  return `${name}: ${what} at byte ${offset} with nothing valid after it (a write cut short); LevelDB ignores the last ${bytes} bytes`;
}
