// A read-only port of LevelDB 1.20's log::Reader (db/log_reader.cc), the
// reader of both the write-ahead logs (NNNNNN.log) and the MANIFEST. It
// accepts, skips and reports exactly what that reader does when LevelDB
// opens a store (checksums on, initial offset 0), so a caller can tell
// before the open what LevelDB would silently drop. Comments name the
// LevelDB code each rule copies.
import crc32c from 'crc-32/crc32c.js';

/** A log file is a sequence of blocks of this size (db/log_format.h kBlockSize). */
export const LOG_BLOCK_SIZE = 32_768;

/** Checksum (4 bytes), length (2 bytes), type (1 byte): db/log_format.h kHeaderSize. */
export const LOG_HEADER_SIZE = 7;

/** Physical record types (db/log_format.h RecordType), then log_reader.h's end of input and record to skip. */
const [ZERO, FULL, FIRST, MIDDLE, LAST, EOF, BAD] = [0, 1, 2, 3, 4, 5, 6] as const;

const EMPTY = Buffer.alloc(0);

/** util/crc32c.h kMaskDelta. */
const MASK_DELTA = 0xa282ead8;

/** One logical record: a write batch of a .log, a version edit of a MANIFEST. */
export interface LogRecord {
  /** File offset of its first physical record (LevelDB's LastRecordOffset). */
  offset: number;
  /** The payload, fragments joined. */
  data: Buffer;
}

/** Data LevelDB's reader drops: what it reports (its Reporter::Corruption), and zeroed headers. */
export interface LogCorruption {
  /** File offset where the dropped bytes start. */
  offset: number;
  /** The byte count LevelDB reports (a checksum mismatch drops the rest of the 32 KiB block). */
  bytesDropped: number;
  /**
   * LevelDB's own words (`checksum mismatch`, `bad record length`,
   * `partial record without end(1)`, …), or `zeroed record header`.
   */
  reason: string;
  /**
   * False for a zeroed header: LevelDB takes a zero-type, zero-length
   * header for space an mmap writer preallocated and skips the rest of its
   * block without a word, so writes there are lost unreported.
   */
  reported: boolean;
  /**
   * Whether a physical record with a valid checksum starts after `offset`,
   * in the dropped bytes or later. True means the writer went on after the
   * damage, so the dropped bytes held acknowledged writes; false means a
   * torn tail (a crash or a failed write at the end of the file).
   */
  validRecordFollows: boolean;
}

/** Bytes at the end of the file that LevelDB's reader ignores without a report. */
export interface LogTail {
  /** File offset where the ignored bytes start. */
  offset: number;
  /** How many bytes, to the end of the file. */
  bytes: number;
  /** `truncated record header`, `truncated record` or `record without its last fragment`. */
  reason: string;
}

/** What LevelDB's reader makes of one log file. */
export interface LogContents {
  /** The logical records it returns, in order. */
  records: LogRecord[];
  /** What it drops, in the order it meets it. */
  corruptions: LogCorruption[];
  /** What it treats as end of file without a report (a writer that died mid-record), if anything. */
  ignoredTail: LogTail | null;
  /** Offset of the last physical record with a valid checksum, found or dropped; -1 if none. */
  lastValidOffset: number;
}

/** A physical record: a fragment of a logical record, or EOF / BAD. */
interface Physical {
  type: number;
  /** Header offset. */
  offset: number;
  data: Buffer;
}

/** The checksum a header must hold for the type byte and payload that start at `at`. */
function maskedCrc(file: Buffer, at: number, length: number): number {
  const crc = crc32c.buf(file.subarray(at, at + 1 + length)) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + MASK_DELTA) >>> 0;
}

/** Whether a checksum-valid record of a type LevelDB writes starts at `at` and ends by `end`. */
export function validRecordAt(file: Buffer, at: number, end: number): boolean {
  const type = file[at + 6] ?? ZERO;
  if (type < FULL || type > LAST) return false;
  const length = file.readUInt16LE(at + 4);
  if (at + LOG_HEADER_SIZE + length > end) return false;
  return file.readUInt32LE(at) === maskedCrc(file, at + 6, length);
}

/** Reads one log file's physical records as ReadPhysicalRecord does. */
class PhysicalReader {
  /** LevelDB's buffer_ is [pos, end): `end` is its end_of_buffer_offset_. */
  private pos = 0;
  private end = 0;
  private eof = false;
  readonly corruptions: Omit<LogCorruption, 'validRecordFollows'>[] = [];
  /** Bytes dropped or skipped whole, where valid records may hide. */
  readonly regions: { start: number; end: number }[] = [];
  tail: LogTail | null = null;
  /** Where a record ran past the end of the file, if one did. */
  cut: number | null = null;
  lastValidOffset = -1;

  constructor(readonly file: Buffer) {}

  report(offset: number, bytesDropped: number, reason: string, reported = true): void {
    this.corruptions.push({ offset, bytesDropped, reason, reported });
  }

  next(): Physical {
    for (;;) {
      const size = this.end - this.pos;
      if (size < LOG_HEADER_SIZE) {
        if (!this.eof) {
          // The last read was a full block: what is left is a trailer to skip.
          this.pos = this.end;
          this.end = Math.min(this.file.length, this.end + LOG_BLOCK_SIZE);
          if (this.end - this.pos < LOG_BLOCK_SIZE) this.eof = true;
          continue;
        }
        // A header cut short by the end of the file: a writer that died mid-header, not corruption.
        if (size > 0) this.tail = { offset: this.pos, bytes: size, reason: 'truncated record header' };
        this.pos = this.end;
        return { type: EOF, offset: this.end, data: EMPTY };
      }
      return this.parse(this.pos, size);
    }
  }

  /** Parses the header at `at`, with `size` bytes left in the block buffer. */
  private parse(at: number, size: number): Physical {
    const length = this.file.readUInt16LE(at + 4);
    const type = this.file[at + 6] ?? ZERO;
    if (LOG_HEADER_SIZE + length > size) {
      // At the end of the file: a writer that died mid-record, not corruption.
      if (this.eof) {
        this.pos = this.end;
        this.tail = { offset: at, bytes: size, reason: 'truncated record' };
        // Unless the length itself is damaged: then valid records may follow (readLog looks).
        this.cut = at;
        this.regions.push({ start: at, end: this.file.length });
        return { type: EOF, offset: at, data: EMPTY };
      }
      return this.drop(at, size, 'bad record length');
    }
    if (type === ZERO && length === 0) {
      // Taken for space preallocated by an mmap writer: the rest of the block goes, unreported.
      return this.drop(at, size, 'zeroed record header', false);
    }
    if (this.file.readUInt32LE(at) !== maskedCrc(this.file, at + 6, length)) {
      // LevelDB drops the rest of the block: the length itself may be what is corrupt.
      return this.drop(at, size, 'checksum mismatch');
    }
    this.pos = at + LOG_HEADER_SIZE + length;
    if (type >= FULL && type <= LAST) this.lastValidOffset = at;
    return { type, offset: at, data: this.file.subarray(at + LOG_HEADER_SIZE, this.pos) };
  }

  private drop(at: number, size: number, reason: string, reported = true): Physical {
    this.pos = this.end;
    this.report(at, size, reason, reported);
    this.regions.push({ start: at, end: at + size });
    return { type: BAD, offset: at, data: EMPTY };
  }
}

/** Joins fragments into logical records as Reader::ReadRecord does. */
function readRecords(reader: PhysicalReader): LogRecord[] {
  const records: LogRecord[] = [];
  let fragments: Buffer[] | null = null;
  let scratchSize = 0;
  let start = 0;
  const abandon = (reason: string, extra = 0): void => {
    reader.report(start, scratchSize + extra, reason);
    fragments = null;
    scratchSize = 0;
  };
  for (;;) {
    const p = reader.next();
    // An empty FIRST left at a block's end by old writers is not an error (scratch empty).
    if ((p.type === FULL || p.type === FIRST) && fragments !== null && scratchSize > 0) {
      abandon(`partial record without end(${p.type === FULL ? 1 : 2})`);
    }
    switch (p.type) {
      case FULL:
        fragments = null;
        scratchSize = 0;
        records.push({ offset: p.offset, data: p.data });
        break;
      case FIRST:
        start = p.offset;
        fragments = [p.data];
        scratchSize = p.data.length;
        break;
      case MIDDLE:
      case LAST:
        if (fragments === null) {
          reader.report(p.offset, p.data.length, `missing start of fragmented record(${p.type === MIDDLE ? 1 : 2})`);
        } else {
          fragments.push(p.data);
          scratchSize += p.data.length;
          if (p.type === LAST) {
            records.push({ offset: start, data: Buffer.concat(fragments) });
            fragments = null;
            scratchSize = 0;
          }
        }
        break;
      case EOF:
        // A writer that died between the fragments of one record: ignored, not corruption.
        if (fragments !== null) reader.tail = { offset: start, bytes: reader.file.length - start, reason: 'record without its last fragment' };
        return records;
      case BAD:
        if (fragments !== null) abandon('error in middle of record');
        break;
      default:
        if (fragments !== null) abandon(`unknown record type ${p.type}`, p.data.length);
        else reader.report(p.offset, p.data.length, `unknown record type ${p.type}`);
    }
  }
}

/**
 * The last valid record in the file: the reader's last, or a later one
 * inside bytes it dropped or skipped (a flipped byte early in a block drops
 * the valid records after it in that block). Regions are searched from the
 * end back, each from its end back, so the first hit is the answer.
 */
function lastValidOffset(file: Buffer, reader: PhysicalReader): number {
  const last = reader.lastValidOffset;
  const regions = [...reader.regions].sort((a, b) => b.start - a.start);
  for (const r of regions) {
    // Regions never overlap the records the reader returned.
    if (r.start < last) break;
    for (let at = r.end - LOG_HEADER_SIZE; at > r.start; at--) {
      if (validRecordAt(file, at, r.end)) return at;
    }
  }
  return last;
}

/**
 * Reads `file` (a whole .log or MANIFEST) as LevelDB 1.20 does when it
 * opens a store: its records, what it drops (reported or not) and what it
 * ignores at the end, and for each drop whether valid records come after it.
 */
export function readLog(file: Buffer): LogContents {
  const reader = new PhysicalReader(file);
  const records = readRecords(reader);
  const last = lastValidOffset(file, reader);
  const corruptions: LogCorruption[] = reader.corruptions.map((c) => ({ ...c, validRecordFollows: last > c.offset }));
  let tail = reader.tail;
  if (reader.cut !== null && last > reader.cut) {
    // Not a write cut short: a damaged length ran past the end of the file, and LevelDB
    // takes everything after it for a torn tail, valid records included, without a word.
    const at = reader.cut;
    corruptions.push({ offset: at, bytesDropped: file.length - at, reason: 'record length past the end of the file', reported: false, validRecordFollows: true });
    tail = null;
  }
  return { records, corruptions, ignoredTail: tail, lastValidOffset: last };
}
