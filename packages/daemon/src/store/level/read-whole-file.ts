import { open } from 'node:fs/promises';

/**
 * A whole file's bytes, in a buffer of its own (offset 0, so typed arrays
 * can view it at any aligned offset), read by positioned reads on libuv's
 * thread pool: for a regular file, one. `readFile` makes a chain of
 * 512 KiB reads instead, each waiting for the event loop to ask for the
 * next; while the store opens the loop is busy, and `readFile` took
 * 180 ms for a 76 MB image that one read brings in 150. (Two reads of
 * halves at once took 86 ms, but both cores from the start-up they
 * overlap: the first search was answered later, 604 ms from spawn
 * against 520.) Throws if the file shrinks while being read.
 */
export async function readWholeFile(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    for (let at = 0; at < size; ) {
      const { bytesRead } = await file.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`the file ended at ${at} bytes, before its ${size} (it changed while being read)`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}
