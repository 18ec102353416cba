import { open } from 'node:fs/promises';

/**
 * How many reads {@link readInParts} makes at once by default: one. Two
 * read a 76 MB image in 86 ms against one's 150 on a 2-core VM, but they
 * take both cores from the start-up they overlap, and the daemon answered
 * its first search later (median 604 ms from spawn against 520).
 */
export const DEFAULT_READ_PARTS = 1;

/**
 * A whole file's bytes, read as `parts` positioned reads at once into one
 * buffer of its own (offset 0, so typed arrays can view it at any aligned
 * offset). Each part is one read on libuv's thread pool, not a chain of
 * 512 KiB reads as `readFile` makes, each waiting for the event loop to
 * ask for the next: while the store opens, the loop is busy, and
 * `readFile` took 180 ms for a 76 MB image that one read brings in 150.
 * Throws if the file shrinks while being read.
 */
export async function readInParts(path: string, parts = DEFAULT_READ_PARTS): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    // Parts of whole pages, so no two reads share one.
    const step = Math.max(4096, Math.ceil(size / parts / 4096) * 4096);
    const reads: Promise<void>[] = [];
    for (let start = 0; start < size; start += step) reads.push(readRange(file, bytes, start, Math.min(size, start + step)));
    await Promise.all(reads);
    return bytes;
  } finally {
    await file.close();
  }
}

async function readRange(file: import('node:fs/promises').FileHandle, into: Buffer, start: number, end: number): Promise<void> {
  for (let at = start; at < end; ) {
    const { bytesRead } = await file.read(into, at, end - at, at);
    if (bytesRead === 0) throw new Error(`the file ended at ${at} bytes, before its ${into.length} (it changed while being read)`);
    at += bytesRead;
  }
}
