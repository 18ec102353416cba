import { type FileHandle, open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { DaemonClient } from '@memoryd/client';
import { AdminImport, Limits } from '@memoryd/protocol';
import { EXPORT_FORMAT, EXPORT_VERSION } from './export-file.js';
import { fileProblem } from './file-problem.js';

/** The input is not an export file (its first line, or nothing at all): nothing was imported. */
export class NotAnExport extends Error {
  override name = 'NotAnExport';
}

/** A line the import did not take, with why. */
export interface Rejection {
  /** 1-based line number in the file. */
  line: number;
  reason: string;
}

/** What an import did. */
export interface ImportOutcome {
  imported: number;
  skipped: number;
  rejected: Rejection[];
}

/** How far an import is: bytes read of the whole (when known) and records sent. */
export interface ImportProgress {
  bytes: number;
  totalBytes: number | undefined;
  records: number;
}

/**
 * Where an import reads from: a file (its size known), or `stdin` when no
 * file is given. A file that cannot be read is a usage error naming it
 * (file-problem.ts), found before anything is sent.
 */
export async function importSource(file: string | undefined, stdin: () => Readable): Promise<{ stream: Readable; size: number | undefined }> {
  if (file === undefined) return { stream: stdin(), size: undefined };
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const stats = await handle.stat();
    // open() takes a directory; its first read would fail, after the progress bar had started.
    if (stats.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR', syscall: 'read' });
    return { stream: handle.createReadStream(), size: stats.size };
  } catch (err) {
    await handle?.close();
    throw fileProblem('read', file, err);
  }
}

/** Why a header line is not one this memoryctl reads, or undefined. */
function headerProblem(line: string): string | undefined {
  let header: { type?: unknown; version?: unknown };
  try {
    header = JSON.parse(line) as typeof header;
  } catch {
    return 'not a memoryd export file: the first line is not JSON';
  }
  if (header?.type !== EXPORT_FORMAT) return `not a memoryd export file: the first line is not {"type":"${EXPORT_FORMAT}",…}`;
  if (header.version !== EXPORT_VERSION) return `export format version ${String(header.version)}, this memoryctl reads ${EXPORT_VERSION}`;
  return undefined;
}

/**
 * Imports an export file: the header line, then records sent 1,000 a call
 * (admin.import). A line that is not JSON, or that the daemon rejects, is
 * reported with its line number and the rest go on; a record the agent
 * already has is skipped, so a second import adds nothing. Throws when the
 * header is not an export file's (nothing is imported then).
 */
export async function importStream(
  client: DaemonClient,
  stream: Readable,
  progress: (p: ImportProgress) => void,
  totalBytes: number | undefined,
): Promise<ImportOutcome> {
  const outcome: ImportOutcome = { imported: 0, skipped: 0, rejected: [] };
  let batch: unknown[] = [];
  let lines: number[] = [];
  let bytes = 0;
  let records = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const r = await client.call(AdminImport, { records: batch as never });
    outcome.imported += r.imported;
    outcome.skipped += r.skipped;
    // The daemon names the field by its place in this call (records[3].id): the line number says that.
    for (const x of r.rejected) outcome.rejected.push({ line: lines[x.index]!, reason: x.reason.replace(/^records\[\d+\]\.?/, '') || x.reason });
    records += batch.length;
    batch = [];
    lines = [];
    progress({ bytes, totalBytes, records });
  };
  let n = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    n++;
    bytes += Buffer.byteLength(line) + 1;
    if (n === 1) {
      const problem = headerProblem(line);
      if (problem !== undefined) throw new NotAnExport(`line 1: ${problem}`);
      continue;
    }
    if (line.trim() === '') continue;
    try {
      batch.push(JSON.parse(line));
      lines.push(n);
    } catch {
      outcome.rejected.push({ line: n, reason: 'not JSON' });
    }
    if (batch.length === Limits.importMaxRecords) await send();
  }
  if (n === 0) throw new NotAnExport('the input is empty: not a memoryd export file');
  await send();
  outcome.rejected.sort((a, b) => a.line - b.line);
  return outcome;
}
