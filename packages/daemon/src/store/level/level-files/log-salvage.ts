// What LevelDB's repair would drop from a damaged log, found again. Its
// reader drops the rest of a 32 KiB block after a bad record (and the
// fragments of a record whose start it dropped); the writes there were
// acknowledged and are intact but for the one that was hit. This finds
// every physical record whose checksum holds, wherever it starts, joins
// the fragments that still chain, and decodes the write batches
// (db/write_batch.cc: sequence fixed64, count fixed32, then per entry a
// tag, 1 put or 0 delete, and length-prefixed key and value).
import { LOG_BLOCK_SIZE, LOG_HEADER_SIZE, type LogRecord, readLog, validRecordAt } from './log-reader.js';

const [FULL, FIRST, MIDDLE, LAST] = [1, 2, 3, 4] as const;
const BATCH_HEADER = 12;

/** One write of a batch: a put (value set) or a delete. */
export interface BatchWrite {
  key: string;
  value: string | undefined;
}

/** A decoded write batch of a log. */
export interface LogBatch {
  /** Sequence number of its first write: later batches have higher ones. */
  sequence: number;
  writes: BatchWrite[];
  /** Whether LevelDB's own reader returns it (false: it would be dropped). */
  kept: boolean;
}

/** Every physical record with a valid checksum, in file order, resynchronising byte by byte after damage. */
function fragments(file: Buffer): Array<{ offset: number; end: number; type: number; data: Buffer }> {
  const out = [];
  let at = 0;
  while (at + LOG_HEADER_SIZE <= file.length) {
    const blockEnd = Math.min(file.length, (Math.floor(at / LOG_BLOCK_SIZE) + 1) * LOG_BLOCK_SIZE);
    if (blockEnd - at < LOG_HEADER_SIZE) {
      at = blockEnd;
      continue;
    }
    if (!validRecordAt(file, at, blockEnd)) {
      at++;
      continue;
    }
    const end = at + LOG_HEADER_SIZE + file.readUInt16LE(at + 4);
    out.push({ offset: at, end, type: file[at + 6]!, data: file.subarray(at + LOG_HEADER_SIZE, end) });
    at = end;
  }
  return out;
}

/** Where the next fragment of a record ending at `end` starts: right after it, or past a block's trailer. */
function follows(end: number, next: number): boolean {
  const blockEnd = (Math.floor(end / LOG_BLOCK_SIZE) + 1) * LOG_BLOCK_SIZE;
  return next === end || (blockEnd - end < LOG_HEADER_SIZE && next === blockEnd);
}

/** The logical records whose fragments all hold and chain, with their offsets. */
function records(file: Buffer): LogRecord[] {
  const out: LogRecord[] = [];
  let chain: { offset: number; end: number; parts: Buffer[] } | undefined;
  for (const f of fragments(file)) {
    if (f.type === FULL) {
      chain = undefined;
      out.push({ offset: f.offset, data: Buffer.from(f.data) });
    } else if (f.type === FIRST) {
      chain = { offset: f.offset, end: f.end, parts: [f.data] };
    } else if (chain !== undefined && follows(chain.end, f.offset)) {
      chain.parts.push(f.data);
      chain.end = f.end;
      if (f.type === LAST) {
        out.push({ offset: chain.offset, data: Buffer.concat(chain.parts) });
        chain = undefined;
      } else if (f.type !== MIDDLE) chain = undefined;
    } else chain = undefined;
  }
  return out;
}

/** LevelDB's varint32. */
function varint(data: Buffer, at: number): [number, number] {
  let value = 0;
  for (let shift = 0; shift <= 28; shift += 7) {
    const byte = data[at++];
    if (byte === undefined) throw new Error('truncated varint');
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) return [value >>> 0, at];
  }
  throw new Error('varint too long');
}

/** Decodes a write batch; throws on one that does not parse whole. */
export function decodeBatch(data: Buffer): { sequence: number; writes: BatchWrite[] } {
  if (data.length < BATCH_HEADER) throw new Error('write batch too short');
  const sequence = Number(data.readBigUInt64LE(0));
  const count = data.readUInt32LE(8);
  const writes: BatchWrite[] = [];
  let at = BATCH_HEADER;
  const slice = (): string => {
    const [length, start] = varint(data, at);
    if (start + length > data.length) throw new Error('write batch entry past its end');
    at = start + length;
    return data.toString('utf8', start, at);
  };
  for (let i = 0; i < count; i++) {
    const tag = data[at++];
    if (tag === 1) writes.push({ key: slice(), value: slice() });
    else if (tag === 0) writes.push({ key: slice(), value: undefined });
    else throw new Error(`write batch entry with tag ${String(tag)}`);
  }
  if (at !== data.length) throw new Error('write batch longer than its entries');
  return { sequence, writes };
}

/**
 * Every write batch of a log whose bytes are intact, LevelDB's own and
 * those its reader would drop (`kept: false`), in file order. A record
 * that does not decode as a batch is left out.
 */
export function logBatches(file: Buffer): LogBatch[] {
  const kept = new Set(readLog(file).records.map((r) => r.offset));
  const out: LogBatch[] = [];
  for (const record of records(file)) {
    try {
      out.push({ ...decodeBatch(record.data), kept: kept.has(record.offset) });
    } catch {
      // Checksums held but the batch does not parse: nothing of it can be trusted.
    }
  }
  return inSequence(out);
}

/**
 * The batches minus dropped ones that do not fit the sequence: LevelDB
 * numbers writes one after another, so a batch truly dropped between two
 * kept ones starts at or after the end of the one before and ends by the
 * start of the one after. A record found inside a damaged one's bytes
 * (its checksum holding by chance) does not fit, and is left out.
 */
function inSequence(batches: LogBatch[]): LogBatch[] {
  const out: LogBatch[] = [];
  let floor = 0;
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i]!;
    const end = b.sequence + b.writes.length;
    if (!b.kept) {
      const next = batches.slice(i + 1).find((x) => x.kept);
      if (b.sequence < floor || (next !== undefined && end > next.sequence)) continue;
    }
    out.push(b);
    floor = end;
  }
  return out;
}

/**
 * The writes to make after LevelDB's repair replayed the logs without the
 * batches it dropped: for each key whose last write (by sequence, over
 * all the logs' batches) is in a dropped batch, that write. Keys a kept
 * batch wrote last are as LevelDB left them; tables hold only older data.
 */
export function salvagedWrites(batches: readonly LogBatch[]): BatchWrite[] {
  const last = new Map<string, { write: BatchWrite; kept: boolean }>();
  for (const batch of [...batches].sort((a, b) => a.sequence - b.sequence)) {
    for (const write of batch.writes) last.set(write.key, { write, kept: batch.kept });
  }
  return [...last.values()].filter((w) => !w.kept).map((w) => w.write);
}
