import type { IncomingMessage } from 'node:http';
import { Limits } from '@memoryd/protocol';

/** A body over the bound: answered 413, read no further. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the request body is over ${limit} bytes, the daemon's bound for one line`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * Reads a request body of at most `Limits.maxLineBytes` (the bound of one
 * daemon request line, which is what it becomes), refusing a longer one by
 * its Content-Length before reading, or as soon as it passes the bound.
 */
export async function readBoundedBody(req: IncomingMessage, limit = Limits.maxLineBytes): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
