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
 * A refused body is left to flow away unread rather than destroyed, so the
 * refusal can still be answered on its connection.
 */
export function readBoundedBody(req: IncomingMessage, limit = Limits.maxLineBytes): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      req.resume();
      reject(new BodyTooLarge(limit));
    };
    const onEnd = () => (stop(), resolve(Buffer.concat(chunks).toString('utf8')));
    const onError = (err: Error) => (stop(), reject(err));
    const onClose = () => (stop(), reject(Object.assign(new Error('the client went away before its request ended'), { code: 'ECONNRESET' })));
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}
