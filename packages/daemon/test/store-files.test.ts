// inspectStoreFiles reads a LevelDB store's files before the daemon opens
// it. Each case builds a real store with classic-level, damages one file
// the way a disk, a crash or a person does, checks what the inspector says,
// and then opens the store with LevelDB to pin what the engine itself does:
// refuse it, or open it and silently lose data (why the inspector exists).
/// <reference path="../src/store/level/level-files/crc-32.d.ts" />
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import crc32c from 'crc-32/crc32c.js';
import { cleanupAll, tempDir } from '@memoryd/test-support';
// Internal modules, not the package's public API: reached through the compiled daemon.
import { inspectStoreFiles, type PresentStore, type StoreFiles } from '../dist/store/level/level-files/inspect.js';
import { LOG_BLOCK_SIZE, readLog } from '../dist/store/level/level-files/log-reader.js';

after(cleanupAll);

type Db = ClassicLevel<string, string>;

/** A store in a fresh temp dir, written by `fill` and closed. */
async function store(fill: (db: Db) => Promise<void> = async () => {}): Promise<string> {
  const dir = join(tempDir('msf-'), 'store');
  const db: Db = new ClassicLevel(dir);
  await db.open();
  await fill(db);
  await db.close();
  return dir;
}

/** 20 keys `t000`… compacted into a table, then 5 keys `l0`… left in the live log, one record each. */
function tablesAndLog(): Promise<string> {
  return store(async (db) => {
    for (let i = 0; i < 20; i++) await db.put(`t${String(i).padStart(3, '0')}`, `table value ${i}`);
    await db.compactRange('a', 'z');
    for (let i = 0; i < 5; i++) await db.put(`l${i}`, `log value ${i}`);
  });
}

/** `a`, then a 100 KB value `big` (fragments over four 32 KiB blocks), then `z`: all in the live log. */
function fragmentedLog(): Promise<string> {
  return store(async (db) => {
    await db.put('a', 'first');
    await db.put('big', 'x'.repeat(100_000));
    await db.put('z', 'last');
  });
}

/** The one file in `dir` whose name matches. */
function only(dir: string, pattern: RegExp): string {
  const names = readdirSync(dir).filter((n) => pattern.test(n));
  assert.equal(names.length, 1, `one ${pattern} in ${readdirSync(dir).join(' ')}`);
  return join(dir, names[0] ?? '');
}

const logOf = (dir: string): string => only(dir, /^\d+\.log$/);
const tableOf = (dir: string): string => only(dir, /^\d+\.ldb$/);
const manifestOf = (dir: string): string => only(dir, /^MANIFEST-\d+$/);

/** Rewrites `file` after `change` edits its bytes. */
function edit(file: string, change: (bytes: Buffer) => void): void {
  const bytes = readFileSync(file);
  change(bytes);
  writeFileSync(file, bytes);
}

/** One physical log record as db/log_writer.cc frames it: masked CRC-32C of type and payload, length, type. */
function logRecord(payload: Buffer, type = 1): Buffer {
  const typed = Buffer.concat([Buffer.from([type]), payload]);
  const crc = crc32c.buf(typed) >>> 0;
  const header = Buffer.alloc(6);
  header.writeUInt32LE((((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0, 0);
  header.writeUInt16LE(payload.length, 4);
  return Buffer.concat([header, typed]);
}

function present(found: StoreFiles): PresentStore {
  assert.equal(found.state, 'present');
  return found as PresentStore;
}

/** Inspects `dir` and expects exactly one problem, about `file`; returns its reason. */
async function oneProblem(dir: string, file: string): Promise<string> {
  const found = present(await inspectStoreFiles(dir));
  assert.equal(found.problems.length, 1, JSON.stringify(found.problems));
  assert.equal(found.problems[0]?.file, file);
  return found.problems[0]?.reason ?? '';
}

/** Inspects `dir` and expects no problem and one torn tail in `file`; returns its reason. */
async function onlyTornTail(dir: string, file: string): Promise<string> {
  const found = present(await inspectStoreFiles(dir));
  assert.deepEqual(found.problems, []);
  assert.equal(found.tornTails.length, 1, JSON.stringify(found.tornTails));
  assert.equal(found.tornTails[0]?.file, file);
  return found.tornTails[0]?.reason ?? '';
}

/** What LevelDB does with the store: the keys it then holds, or how its open or reads fail. */
async function engine(dir: string): Promise<{ keys: string[] } | { code: unknown; message: string }> {
  const db: Db = new ClassicLevel(dir);
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown; message?: string } }).cause;
    return { code: cause?.code, message: cause?.message ?? '' };
  }
  try {
    return { keys: await db.keys().all() };
  } catch (err) {
    return { code: (err as { code?: unknown }).code, message: (err as Error).message };
  } finally {
    await db.close();
  }
}

const tableKeys = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(3, '0')}`);
const logKeys = ['l0', 'l1', 'l2', 'l3', 'l4'];

describe('store states', () => {
  it('absent: no dir', async () => {
    assert.deepEqual(await inspectStoreFiles(join(tempDir('msf-'), 'store')), { state: 'absent' });
  });

  it('empty: an empty dir, or what a failed LevelDB open leaves (LOCK and LOG)', async () => {
    assert.deepEqual(await inspectStoreFiles(tempDir('msf-')), { state: 'empty' });
    const dir = join(tempDir('msf-'), 'store');
    await assert.rejects(new ClassicLevel(dir, { createIfMissing: false }).open());
    assert.deepEqual(readdirSync(dir).sort(), ['LOCK', 'LOG']);
    assert.deepEqual(await inspectStoreFiles(dir), { state: 'empty' });
  });

  it('a new store: no problems, an empty live log, no tables', async () => {
    const found = present(await inspectStoreFiles(await store()));
    assert.deepEqual(found.problems, []);
    assert.deepEqual(found.tornTails, []);
    assert.deepEqual(found.tables, []);
    assert.deepEqual(found.logs.map((l) => l.records), [0]);
  });

  it('a healthy store with tables and a log: no problems, and what it holds', async () => {
    const dir = await tablesAndLog();
    const found = present(await inspectStoreFiles(dir));
    assert.deepEqual(found.problems, []);
    assert.deepEqual(found.tornTails, []);
    assert.match(found.manifest ?? '', /^MANIFEST-\d{6}$/);
    assert.deepEqual(found.tables.map((t) => t.file), [tableOf(dir)]);
    assert.equal(found.tables[0]?.size, statSync(tableOf(dir)).size);
    assert.deepEqual(found.logs.map((l) => [l.file, l.records]), [[logOf(dir), 5]]);
    assert.equal(found.lastSequence, 25, 'one sequence number per put');
    assert.deepEqual(await engine(dir), { keys: [...logKeys, ...tableKeys] });
  });

  it('a log whose record spans blocks: no problems', async () => {
    const dir = await fragmentedLog();
    assert.ok(statSync(logOf(dir)).size > 3 * LOG_BLOCK_SIZE);
    const found = present(await inspectStoreFiles(dir));
    assert.deepEqual([found.problems, found.tornTails], [[], []]);
    assert.deepEqual(found.logs.map((l) => l.records), [3]);
  });
});

describe('damage LevelDB refuses to open', () => {
  it('CURRENT without its newline', async () => {
    const dir = await tablesAndLog();
    writeFileSync(join(dir, 'CURRENT'), readFileSync(join(dir, 'CURRENT'), 'latin1').trimEnd());
    assert.match(await oneProblem(dir, join(dir, 'CURRENT')), /^CURRENT does not end with a newline; LevelDB would refuse/);
    assert.deepEqual(await engine(dir), { code: 'LEVEL_CORRUPTION', message: 'Corruption: CURRENT file does not end with newline' });
  });

  it('CURRENT naming a MANIFEST that does not exist', async () => {
    const dir = await tablesAndLog();
    writeFileSync(join(dir, 'CURRENT'), 'MANIFEST-000099\n');
    const reason = await oneProblem(dir, join(dir, 'MANIFEST-000099'));
    assert.match(reason, /^CURRENT names MANIFEST-000099, which does not exist/);
    assert.equal((await engine(dir) as { code: unknown }).code, 'LEVEL_IO_ERROR');
  });

  it('an empty MANIFEST', async () => {
    const dir = await tablesAndLog();
    const manifest = manifestOf(dir);
    truncateSync(manifest, 0);
    assert.match(await oneProblem(dir, manifest), /^MANIFEST-\d+: no next-file number recorded; LevelDB would refuse/);
    assert.deepEqual(await engine(dir), { code: 'LEVEL_CORRUPTION', message: 'Corruption: no meta-nextfile entry in descriptor' });
  });

  it('a flipped byte in the MANIFEST', async () => {
    const dir = await tablesAndLog();
    const manifest = manifestOf(dir);
    edit(manifest, (b) => void (b[20] = (b[20] ?? 0) ^ 0x40));
    assert.match(await oneProblem(dir, manifest), /^MANIFEST-\d+: checksum mismatch at byte 0 \(\d+ bytes dropped\); LevelDB would refuse/);
    assert.deepEqual(await engine(dir), { code: 'LEVEL_CORRUPTION', message: 'Corruption: checksum mismatch' });
  });

  it('a live table deleted', async () => {
    const dir = await tablesAndLog();
    const table = tableOf(dir);
    rmSync(table);
    assert.match(await oneProblem(dir, table), /^\d{6}\.ldb: missing, but MANIFEST-\d+ lists it as a live table \(level \d, \d+ bytes\)/);
    const result = await engine(dir);
    assert.equal((result as { code: unknown }).code, 'LEVEL_CORRUPTION');
    assert.match((result as { message: string }).message, /1 missing files/);
  });
  it('CURRENT naming a file that is not a MANIFEST', async () => {
    const dir = await tablesAndLog();
    writeFileSync(join(dir, 'CURRENT'), `${basename(tableOf(dir))}\n`);
    assert.match(await oneProblem(dir, join(dir, 'CURRENT')), /^CURRENT names "\d{6}\.ldb", which is not a MANIFEST file name$/);
    assert.equal((await engine(dir) as { code: unknown }).code, 'LEVEL_CORRUPTION');
  });

  it('a MANIFEST edit naming another comparator', async () => {
    const dir = await tablesAndLog();
    const manifest = manifestOf(dir);
    const name = Buffer.from('other.Comparator');
    appendFileSync(manifest, logRecord(Buffer.concat([Buffer.from([1, name.length]), name])));
    assert.match(await oneProblem(dir, manifest), /^MANIFEST-\d+: comparator "other.Comparator" at byte \d+ is not leveldb.BytewiseComparator; LevelDB would refuse/);
    assert.deepEqual(await engine(dir), { code: undefined, message: 'Invalid argument: other.Comparator does not match existing comparator : leveldb.BytewiseComparator' });
  });

  it('a MANIFEST edit that does not decode', async () => {
    const dir = await tablesAndLog();
    const manifest = manifestOf(dir);
    // Tag 7 (new file) at level 9: past LevelDB's 7 levels.
    appendFileSync(manifest, logRecord(Buffer.from([7, 9, 5, 100])));
    assert.match(await oneProblem(dir, manifest), /^MANIFEST-\d+: undecodable version edit at byte \d+ \(new-file entry\); LevelDB would refuse/);
    assert.deepEqual(await engine(dir), { code: 'LEVEL_CORRUPTION', message: 'Corruption: VersionEdit: new-file entry' });
  });
});

describe('damage LevelDB opens over, losing data', () => {
  it('no CURRENT: LevelDB makes a new database and deletes the old tables', async () => {
    const dir = await tablesAndLog();
    const table = tableOf(dir);
    rmSync(join(dir, 'CURRENT'));
    assert.match(await oneProblem(dir, join(dir, 'CURRENT')), /^CURRENT is missing .*create a new, empty database here and then delete the existing tables as obsolete$/);
    // Its new MANIFEST has log number 0, so the old log is replayed: only the tables' keys go.
    assert.deepEqual(await engine(dir), { keys: logKeys });
    assert.throws(() => statSync(table), { code: 'ENOENT' });
  });

  it('a live table truncated: LevelDB opens, then fails reading it', async () => {
    const dir = await tablesAndLog();
    const table = tableOf(dir);
    truncateSync(table, statSync(table).size - 10);
    assert.match(await oneProblem(dir, table), /^\d{6}\.ldb: \d+ bytes, but MANIFEST-\d+ records \d+ \(truncated\)/);
    const result = await engine(dir);
    assert.equal((result as { code: unknown }).code, 'LEVEL_IO_ERROR');
  });

  it('a flipped byte in an early log record: LevelDB drops the records after it without a word', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    const second = readLog(readFileSync(log)).records[1]?.offset ?? 0;
    edit(log, (b) => void (b[second + 10] = (b[second + 10] ?? 0) ^ 1));
    const dropped = statSync(log).size - second;
    const reason = await oneProblem(dir, log);
    assert.equal(reason, `${basename(log)}: checksum mismatch at byte ${second}, with valid records after it; LevelDB would silently drop ${dropped} bytes of writes there`);
    assert.deepEqual(await engine(dir), { keys: ['l0', ...tableKeys] });
  });

  it('a zeroed log record header: LevelDB skips the rest of the block unreported', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    const second = readLog(readFileSync(log)).records[1]?.offset ?? 0;
    edit(log, (b) => b.fill(0, second, second + 7));
    assert.match(await oneProblem(dir, log), /^\d{6}\.log: zeroed record header at byte \d+, with valid records after it; LevelDB would silently drop/);
    assert.deepEqual(await engine(dir), { keys: ['l0', ...tableKeys] });
  });

  it('the MANIFEST\'s last edit cut off, after the log it retired was deleted: LevelDB loses that log\'s writes', async () => {
    const dir = await tablesAndLog();
    const manifest = manifestOf(dir);
    // The last edit recorded the table made from log 3 and retired log 3, which LevelDB then deleted.
    truncateSync(manifest, statSync(manifest).size - 3);
    const found = present(await inspectStoreFiles(dir));
    assert.deepEqual(found.problems, [
      { file: join(dir, '000003.log'), reason: `000003.log: missing, but ${basename(manifest)} names it as the live log; LevelDB would open the store without the writes it held` },
    ]);
    assert.deepEqual(found.tornTails.map((t) => t.file), [manifest]);
    assert.match(found.tornTails[0]?.reason ?? '', /^MANIFEST-\d+: truncated record at byte \d+ with nothing valid after it/);
    assert.deepEqual(await engine(dir), { keys: logKeys });
  });

  it('a record\'s first fragment with no end, then a whole record: LevelDB drops the fragment without a word', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    const records = readLog(readFileSync(log)).records;
    const start = statSync(log).size;
    // A FIRST fragment, then the last batch again as a FULL record under a new sequence number
    // (the same one twice trips an assertion in LevelDB's memtable, which aborts the process).
    const again = Buffer.from(records[4]?.data ?? Buffer.alloc(0));
    again.writeBigUInt64LE(again.readBigUInt64LE(0) + 100n, 0);
    appendFileSync(log, Buffer.concat([logRecord(Buffer.alloc(20, 'x'), 2), logRecord(again)]));
    const reason = await oneProblem(dir, log);
    assert.match(reason, new RegExp(`^\\d{6}\\.log: partial record without end\\(1\\) at byte ${start}, with valid records after it; LevelDB would silently drop 20 bytes`));
    assert.deepEqual(await engine(dir), { keys: [...logKeys, ...tableKeys] });
  });

  it('a flipped byte in one block of a fragmented record: that record goes, the later ones stay', async () => {
    const dir = await fragmentedLog();
    const log = logOf(dir);
    edit(log, (b) => void (b[LOG_BLOCK_SIZE + 100] = (b[LOG_BLOCK_SIZE + 100] ?? 0) ^ 1));
    const reason = await oneProblem(dir, log);
    assert.match(reason, new RegExp(`^\\d{6}\\.log: checksum mismatch at byte ${LOG_BLOCK_SIZE}, with valid records after it; .* \\(and 3 more damaged spot\\(s\\) after it\\)$`));
    assert.deepEqual(await engine(dir), { keys: ['a', 'z'] });
  });

  it('a bad record length mid-file: LevelDB drops the whole block', async () => {
    const dir = await fragmentedLog();
    const log = logOf(dir);
    edit(log, (b) => b.writeUInt16LE(0xffff, 4));
    assert.match(await oneProblem(dir, log), /^\d{6}\.log: bad record length at byte 0, with valid records after it; LevelDB would silently drop 32768 bytes/);
    assert.deepEqual(await engine(dir), { keys: ['z'] });
  });

  it('a damaged record length in the last block runs past the end: LevelDB takes the rest for a torn tail', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    // The second record's length made larger than what is left of the file (the log is one short block).
    const second = 7 + readFileSync(log).readUInt16LE(4);
    edit(log, (b) => b.writeUInt16LE(0x7000, second + 4));
    assert.match(await oneProblem(dir, log), /^\d{6}\.log: record length past the end of the file at byte \d+, with valid records after it; LevelDB would silently drop \d+ bytes/);
    assert.deepEqual(await engine(dir), { keys: [...logKeys.slice(0, 1), ...tableKeys] });
  });
});

describe('torn tails: warnings, not problems', () => {
  it('the last log record cut short: LevelDB ignores it', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    const last = readLog(readFileSync(log)).records[4]?.offset ?? 0;
    truncateSync(log, statSync(log).size - 3);
    const reason = await onlyTornTail(dir, log);
    assert.match(reason, new RegExp(`^\\d{6}\\.log: truncated record at byte ${last} with nothing valid after it .*; LevelDB ignores the last ${statSync(log).size - last} bytes$`));
    assert.deepEqual(await engine(dir), { keys: ['l0', 'l1', 'l2', 'l3', ...tableKeys] });
  });

  it('a fragmented record cut short: LevelDB ignores the whole record', async () => {
    const dir = await fragmentedLog();
    const log = logOf(dir);
    truncateSync(log, 2 * LOG_BLOCK_SIZE + 500);
    assert.match(await onlyTornTail(dir, log), /^\d{6}\.log: record without its last fragment at byte \d+ /);
    assert.deepEqual(await engine(dir), { keys: ['a'] });
  });

  it('garbage after the last record, read as a record longer than the file: LevelDB ignores it', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    appendFileSync(log, 'garbage! not a record');
    assert.match(await onlyTornTail(dir, log), /^\d{6}\.log: truncated record at byte \d+ /);
    assert.deepEqual(await engine(dir), { keys: [...logKeys, ...tableKeys] });
  });

  it('a record with a bad checksum after the last one: LevelDB reports it and drops it', async () => {
    const dir = await tablesAndLog();
    const log = logOf(dir);
    const end = statSync(log).size;
    // A header (checksum, length 5, FULL) whose checksum is wrong, then its 5 bytes.
    appendFileSync(log, Buffer.from([1, 2, 3, 4, 5, 0, 1, ...Buffer.from('hello')]));
    assert.match(await onlyTornTail(dir, log), new RegExp(`^\\d{6}\\.log: checksum mismatch at byte ${end} with nothing valid after it`));
    assert.deepEqual(await engine(dir), { keys: [...logKeys, ...tableKeys] });
  });
});
