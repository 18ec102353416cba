import { once } from 'node:events';
import { type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { DaemonClient } from '@memoryd/client';
import { AdminExport } from '@memoryd/protocol';
import { fileProblem } from './file-problem.js';

/** The export file's header line (docs/protocol.md, "Export and import"). */
export const EXPORT_FORMAT = 'memoryd-export';
/** The version of the export format this memoryctl writes and reads. */
export const EXPORT_VERSION = 1;
/** Records per admin.export page. */
const PAGE = 1000;

/** Writes a line, waiting when the stream asks to; fails once the stream is destroyed (a reader gone). */
async function writeLine(stream: Writable, line: string): Promise<void> {
  if (stream.destroyed) throw stream.errored ?? new Error('the output was closed');
  if (stream.write(`${line}\n`)) return;
  const ac = new AbortController();
  try {
    // 'drain', or the end of the stream: a destroyed stream never drains.
    await Promise.race([once(stream, 'drain', { signal: ac.signal }), once(stream, 'close', { signal: ac.signal }).then(() => {
      throw stream.errored ?? new Error('the output was closed');
    })]);
  } finally {
    ac.abort();
  }
}

/**
 * Writes an export file to `stream`: the header line, then every record of
 * one consistent snapshot (the daemon's admin.export), one JSON object a
 * line. Returns how many records it wrote.
 */
export async function writeExport(client: DaemonClient, stream: Writable, agentId: string | undefined): Promise<number> {
  const hello = await client.connect();
  await writeLine(stream, JSON.stringify({ type: EXPORT_FORMAT, version: EXPORT_VERSION, createdAt: new Date().toISOString(), daemonVersion: hello.daemonVersion }));
  let count = 0;
  let page = await client.call(AdminExport, agentId === undefined ? { limit: PAGE } : { agentId, limit: PAGE });
  for (;;) {
    for (const record of page.records) await writeLine(stream, JSON.stringify(record));
    count += page.records.length;
    if (page.cursor === undefined) return count;
    page = await client.call(AdminExport, { cursor: page.cursor });
  }
}

/**
 * Writes an export to `path` whole or not at all: into `path.partial`,
 * synced, then renamed over `path`. A failure leaves no file behind; a
 * path that cannot be written is a usage error naming it (file-problem.ts),
 * found before the daemon is asked for anything.
 */
export async function exportToFile(client: DaemonClient, path: string, agentId: string | undefined): Promise<number> {
  const partial = `${path}.partial`;
  const stream = (await openPartial(path, partial)).createWriteStream();
  // A write that fails (a full disk) between lines is thrown by the next writeLine or by finished() below;
  // this listener only keeps it from being an unhandled 'error' event.
  stream.on('error', () => {});
  try {
    const count = await writeExport(client, stream, agentId);
    await finished(stream.end());
    // On disk before it takes the name: a backup that a crash could leave half-written is no backup.
    const file = await open(partial, 'r+');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(partial, path);
    return count;
  } catch (err) {
    stream.destroy();
    await rm(partial, { force: true });
    // A full disk, say; the daemon's errors pass as they are.
    throw fileProblem('write', path, err);
  }
}

/** Opens `partial` (0600) for an export to `path`, or throws the sentence that says why not. */
async function openPartial(path: string, partial: string): Promise<FileHandle> {
  try {
    // The rename at the end would fail on a directory, after the whole export: say so first.
    if ((await stat(path).catch(() => undefined))?.isDirectory() === true) {
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${path}'`), { code: 'EISDIR', syscall: 'open' });
    }
    return await open(partial, 'w', 0o600);
  } catch (err) {
    throw fileProblem('write', path, err);
  }
}
