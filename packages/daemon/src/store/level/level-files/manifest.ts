// Decodes a LevelDB 1.20 MANIFEST: a log (log-reader.ts) of VersionEdits
// (db/version_edit.cc DecodeFrom), folded into the live state the way
// VersionSet::Recover (db/version_set.cc) folds them when LevelDB opens a
// store, and refused for the same reasons it refuses them.
import { type LogContents, type LogTail, readLog } from './log-reader.js';

/** The only comparator memoryd's stores use (util/comparator.cc). */
export const BYTEWISE_COMPARATOR = 'leveldb.BytewiseComparator';

/** db/dbformat.h config::kNumLevels: a level at or past it is a decode error. */
const NUM_LEVELS = 7;

/** A table file the MANIFEST lists as live. */
export interface TableFile {
  /** 0 to 6. */
  level: number;
  /** The file number: NNNNNN.ldb (or the legacy NNNNNN.sst). */
  number: number;
  /** Its size in bytes, as recorded when it was written. */
  size: number;
}

/** One decoded VersionEdit; fields absent from the edit are undefined. */
export interface VersionEdit {
  comparator?: string;
  logNumber?: number;
  prevLogNumber?: number;
  nextFileNumber?: number;
  lastSequence?: number;
  deletedFiles: { level: number; number: number }[];
  newFiles: TableFile[];
}

/** The state a MANIFEST describes, from its edits in order. */
export interface ManifestState {
  /** The last comparator name recorded, if any. */
  comparator: string | null;
  /** Logs numbered below it are obsolete; null if no edit recorded one. */
  logNumber: number | null;
  /** A log older LevelDB versions still replayed beside the current ones; 0 when none was recorded, as LevelDB takes it. */
  prevLogNumber: number;
  nextFileNumber: number | null;
  lastSequence: number | null;
  /** The live tables, by level then number. */
  tables: TableFile[];
}

/** The first reason not to trust a MANIFEST. */
export interface ManifestFault {
  /** File offset of the record or drop at fault; null for a field missing from the whole file. */
  offset: number | null;
  /** True if LevelDB would refuse the store; false if it would open it having silently lost edits. */
  refused: boolean;
  /** What is wrong, e.g. `checksum mismatch at byte 0 (96 bytes dropped)` or `no log number recorded`. */
  reason: string;
}

/** What a MANIFEST holds and whether LevelDB would accept it. */
export interface ManifestContents {
  /** Folded from the edits before the first fault. */
  state: ManifestState;
  /** How many edits were folded. */
  edits: number;
  /** Null when LevelDB would recover the state above from this file. */
  fault: ManifestFault | null;
  /** A cut-off last edit, which LevelDB ignores (after a crash, the change it described never took effect). */
  ignoredTail: LogTail | null;
}

/** Reads util/coding.h varints and length-prefixed slices, returning null where GetVarint* fails. */
class Cursor {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** GetVarint32Ptr: at most 5 bytes; bits past 32 are dropped, as uint32 arithmetic does. */
  varint32(): number | null {
    return this.varint(28, 2 ** 32);
  }

  /**
   * GetVarint64Ptr: at most 10 bytes. Unlike LevelDB, a value past 2^53
   * (which no real store reaches) fails to decode rather than lose precision.
   */
  varint64(): number | null {
    const value = this.varint(63, 2 ** 64);
    return value === null || value > Number.MAX_SAFE_INTEGER ? null : value;
  }

  /** GetLengthPrefixedSlice. */
  slice(): Buffer | null {
    const length = this.varint32();
    if (length === null || this.buf.length - this.pos < length) return null;
    this.pos += length;
    return this.buf.subarray(this.pos - length, this.pos);
  }

  /** GetLevel: a varint32 below kNumLevels. */
  level(): number | null {
    const level = this.varint32();
    return level !== null && level < NUM_LEVELS ? level : null;
  }

  private varint(maxShift: number, modulus: number): number | null {
    let value = 0;
    for (let shift = 0, at = this.pos; shift <= maxShift && at < this.buf.length; shift += 7, at++) {
      const byte = this.buf[at] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) {
        this.pos = at + 1;
        return value % modulus;
      }
    }
    return null;
  }
}

/** Reads a varint64 field into `set`; returns `name` if it does not decode. */
function number(c: Cursor, name: string, set: (n: number) => void): string | null {
  const n = c.varint64();
  if (n === null) return name;
  set(n);
  return null;
}

/** Decodes one tag's value into `edit`; returns LevelDB's name for what failed, or null. */
function decodeTag(tag: number, c: Cursor, edit: VersionEdit): string | null {
  switch (tag) {
    case 1: {
      const name = c.slice();
      if (name === null) return 'comparator name';
      edit.comparator = name.toString('latin1');
      return null;
    }
    case 2:
      return number(c, 'log number', (n) => (edit.logNumber = n));
    case 3:
      return number(c, 'next file number', (n) => (edit.nextFileNumber = n));
    case 4:
      return number(c, 'last sequence number', (n) => (edit.lastSequence = n));
    case 5:
      // A compaction pointer: a level and an internal key, neither needed here.
      return c.level() !== null && c.slice() !== null ? null : 'compaction pointer';
    case 6: {
      const level = c.level();
      const number = level === null ? null : c.varint64();
      if (level === null || number === null) return 'deleted file';
      edit.deletedFiles.push({ level, number });
      return null;
    }
    case 7:
      return decodeNewFile(c, edit);
    case 9:
      return number(c, 'previous log number', (n) => (edit.prevLogNumber = n));
    default:
      return 'unknown tag';
  }
}

/** Tag 7: level, number, size, smallest and largest internal keys (kept for nothing but validity). */
function decodeNewFile(c: Cursor, edit: VersionEdit): string | null {
  const level = c.level();
  const number = level === null ? null : c.varint64();
  const size = number === null ? null : c.varint64();
  if (level === null || number === null || size === null || c.slice() === null || c.slice() === null) {
    return 'new-file entry';
  }
  edit.newFiles.push({ level, number, size });
  return null;
}

/**
 * Decodes one MANIFEST record as VersionEdit::DecodeFrom does. Returns the
 * edit, or LevelDB's name for the part that failed (`new-file entry`,
 * `unknown tag`, `invalid tag`, …).
 */
export function decodeVersionEdit(record: Buffer): VersionEdit | string {
  const edit: VersionEdit = { deletedFiles: [], newFiles: [] };
  const c = new Cursor(record);
  while (!c.done) {
    const tag = c.varint32();
    // A tag that is not even a varint leaves bytes behind: DecodeFrom's "invalid tag".
    if (tag === null) return 'invalid tag';
    const failed = decodeTag(tag, c, edit);
    if (failed !== null) return failed;
  }
  return edit;
}

/** Folds one edit in as VersionSet::Builder::Apply does: deletions first, then additions. */
function apply(state: ManifestState, live: Map<string, TableFile>, edit: VersionEdit): void {
  if (edit.comparator !== undefined) state.comparator = edit.comparator;
  if (edit.logNumber !== undefined) state.logNumber = edit.logNumber;
  if (edit.prevLogNumber !== undefined) state.prevLogNumber = edit.prevLogNumber;
  if (edit.nextFileNumber !== undefined) state.nextFileNumber = edit.nextFileNumber;
  if (edit.lastSequence !== undefined) state.lastSequence = edit.lastSequence;
  for (const f of edit.deletedFiles) live.delete(`${f.level}/${f.number}`);
  for (const f of edit.newFiles) live.set(`${f.level}/${f.number}`, f);
}

/** VersionSet::Recover's checks once every edit is in, in its order. */
function missingField(state: ManifestState): string | null {
  if (state.nextFileNumber === null) return 'no next-file number recorded';
  if (state.logNumber === null) return 'no log number recorded';
  if (state.lastSequence === null) return 'no last sequence number recorded';
  return null;
}

/** The first drop that is a fault: any LevelDB reports, or a zeroed header it skips with edits after it. */
function dropFault(log: LogContents): ManifestFault | null {
  const c = log.corruptions.find((d) => d.reported || d.validRecordFollows);
  if (c === undefined) return null;
  if (c.reported) return { offset: c.offset, refused: true, reason: `${c.reason} at byte ${c.offset} (${c.bytesDropped} bytes dropped)` };
  return { offset: c.offset, refused: false, reason: `${c.reason} at byte ${c.offset}, with valid edits after it (${c.bytesDropped} bytes skipped)` };
}

/** The earliest end LevelDB ignores: a cut-off record, or a zeroed header with nothing valid after it. */
function ignoredTail(log: LogContents, length: number): LogTail | null {
  const zeroed = log.corruptions.find((d) => !d.reported && !d.validRecordFollows);
  if (zeroed === undefined || (log.ignoredTail !== null && log.ignoredTail.offset < zeroed.offset)) return log.ignoredTail;
  return { offset: zeroed.offset, bytes: length - zeroed.offset, reason: zeroed.reason };
}

/** Folds the edits before `fault` into `state`; returns how many, and the first edit LevelDB would refuse. */
function fold(log: LogContents, state: ManifestState, fault: ManifestFault | null): { edits: number; fault: ManifestFault | null } {
  const live = new Map<string, TableFile>();
  let edits = 0;
  for (const record of log.records) {
    if (fault !== null && fault.offset !== null && fault.offset <= record.offset) break;
    const edit = decodeVersionEdit(record.data);
    const at = record.offset;
    if (typeof edit === 'string') {
      fault = { offset: at, refused: true, reason: `undecodable version edit at byte ${at} (${edit})` };
      break;
    }
    if (edit.comparator !== undefined && edit.comparator !== BYTEWISE_COMPARATOR) {
      fault = { offset: at, refused: true, reason: `comparator ${JSON.stringify(edit.comparator)} at byte ${at} is not ${BYTEWISE_COMPARATOR}` };
      break;
    }
    apply(state, live, edit);
    edits++;
  }
  state.tables = [...live.values()].sort((a, b) => a.level - b.level || a.number - b.number);
  return { edits, fault };
}

/**
 * Reads a whole MANIFEST file as LevelDB 1.20 does at open: any corruption
 * the log reader reports, any edit that does not decode and any comparator
 * other than {@link BYTEWISE_COMPARATOR} is a fault (LevelDB stops there and
 * refuses the store), as is a missing log number, next-file number or last
 * sequence; so is a zeroed record header with valid edits after it, which
 * LevelDB skips without a word.
 */
export function readManifest(file: Buffer): ManifestContents {
  const log = readLog(file);
  const state: ManifestState = { comparator: null, logNumber: null, prevLogNumber: 0, nextFileNumber: null, lastSequence: null, tables: [] };
  const { edits, fault } = fold(log, state, dropFault(log));
  const missing = fault === null ? missingField(state) : null;
  const final = missing === null ? fault : { offset: null, refused: true, reason: missing };
  return { state, edits, fault: final, ignoredTail: ignoredTail(log, file.length) };
}
