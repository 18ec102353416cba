import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type TransformCallback, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { DaemonClient } from '@memoryd/client';
import { Limits } from '@memoryd/protocol';
import { writeExport } from '../export-file.js';
import { NotAnExport, importStream } from '../import-file.js';
import { BodyTooLarge } from './body.js';
import { sendDaemonError } from './daemon-calls.js';
import { head, sendError, sendJson } from './responses.js';

/** A file name that says what the export holds and when, in characters every file system takes. */
function exportFileName(agentId: string | undefined, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const who = agentId === undefined ? 'all' : agentId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'agent';
  return `memoryd-${who}-${stamp}.jsonl`;
}

/**
 * A writable over the response that sends the download's headers with its
 * first line, so that a failure before any line (no daemon) is still
 * answered as an error rather than as a broken file.
 */
function downloadStream(res: ServerResponse, fileName: string): Writable {
  let started = false;
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!started) {
        started = true;
        head(res, 200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` });
      }
      if (res.write(chunk)) done();
      else res.once('drain', () => done());
    },
    // Lines still held here when the export ends go out first: the response ends after the last of them.
    final(done) {
      res.end(() => done());
    },
  });
  // A download cancelled in the browser ends the export at its next line (the daemon drops its snapshot once idle):
  // writeExport finds the stream destroyed and throws. This listener only keeps the error from being unhandled.
  out.on('error', () => {});
  res.once('close', () => {
    if (!res.writableFinished) out.destroy(new Error('the download was cancelled'));
  });
  return out;
}

/**
 * The export of `agentId` (undefined: everything) as a download: memoryctl
 * export's file, read from one consistent snapshot page by page. A
 * failure after the first line cuts the download off, so the browser
 * shows it failed rather than keeping half a file as if whole.
 */
export async function sendExport(client: DaemonClient, agentId: string | undefined, res: ServerResponse): Promise<void> {
  const out = downloadStream(res, exportFileName(agentId, new Date()));
  try {
    await writeExport(client, out, agentId);
    await finished(out.end());
  } catch (err) {
    if (res.headersSent) res.destroy(err as Error);
    else sendDaemonError(res, err);
  }
}

/** Passes bytes through, failing with BodyTooLarge at a line longer than the daemon takes. */
function lineBound(limit: number): Transform {
  let lineBytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        if (lineBytes + nl - start > limit) return done(new BodyTooLarge(limit));
        lineBytes = 0;
        start = nl + 1;
      }
      lineBytes += chunk.length - start;
      if (lineBytes > limit) return done(new BodyTooLarge(limit));
      done(null, chunk);
    },
  });
}

/**
 * `POST /api/import` with an export file as the body: memoryctl import's
 * work, 1,000 records a call while the file arrives, answered with what
 * was imported, skipped and refused (each refused line with its reason).
 * The file may be of any size; each line is bounded as the daemon bounds
 * its lines (413). A body that is not an export file is 400, nothing
 * imported.
 */
export async function receiveImport(client: DaemonClient, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const bound = lineBound(Limits.maxLineBytes);
  const declared = Number(req.headers['content-length']);
  req.pipe(bound);
  req.once('error', (err) => bound.destroy(err));
  // An upload cut off (the tab closed) ends the import where it was: what was stored stays, and importing the file again skips it.
  req.once('close', () => {
    if (!req.complete) bound.destroy(new Error('the upload was cut off'));
  });
  try {
    const outcome = await importStream(client, bound, () => {}, Number.isFinite(declared) ? declared : undefined);
    sendJson(res, 200, { result: outcome });
  } catch (err) {
    req.unpipe(bound);
    req.resume();
    if (err instanceof BodyTooLarge) sendError(res, 413, 'UI_TOO_LARGE', `a line of the file is over ${err.limit} bytes, the daemon's bound for one line`);
    else if (err instanceof NotAnExport) sendError(res, 400, 'UI_NOT_AN_EXPORT', err.message);
    else sendDaemonError(res, err);
  }
}
