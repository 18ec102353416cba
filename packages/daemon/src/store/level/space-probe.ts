import { open, readdir, rm, stat, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';

const MiB = 1024 * 1024;
/** The most a probe writes: LevelDB's log is rotated at its 4 MiB write buffer, so this is never the limit in practice. */
const MAX_PROBE_BYTES = 64 * MiB;
const PROBE_NAME = '.memoryd-space-probe';

/**
 * Bytes a reopen of the store may need: LevelDB turns the live logs into
 * a table (at most their size), writes a new MANIFEST and a new log; twice
 * the logs plus 1 MiB leaves room for the first writes after it.
 */
async function bytesNeeded(storeDir: string): Promise<number> {
  let logs = 0;
  for (const name of await readdir(storeDir)) {
    if (name.endsWith('.log')) logs += (await stat(join(storeDir, name)).catch(() => ({ size: 0 }))).size;
  }
  return Math.min(MAX_PROBE_BYTES, 2 * logs + MiB);
}

/** Removes a probe file a daemon killed mid-probe left behind (up to 64 MiB on a disk that was full). */
export async function clearProbe(dataDir: string): Promise<void> {
  await rm(join(dataDir, PROBE_NAME), { force: true });
}

/**
 * Shows that the data dir's file system takes writes again: writes,
 * syncs and removes a file as large as a reopen of the store may need.
 * Throws the file system's error (`ENOSPC`, `EDQUOT`, `EROFS`, `EIO`)
 * while it does not. Reopening without this could close a store that
 * still serves reads and fail to open it again.
 */
export async function probeSpace(dataDir: string, storeDir: string): Promise<void> {
  const need = await bytesNeeded(storeDir);
  const fs = await statfs(dataDir);
  const free = fs.bavail * fs.bsize;
  if (free < need) {
    throw Object.assign(new Error(`ENOSPC: No space left on device: ${need} bytes needed to reopen the store, ${free} free in ${dataDir}`), { code: 'ENOSPC' });
  }
  const path = join(dataDir, PROBE_NAME);
  const file = await open(path, 'w', 0o600);
  try {
    const chunk = Buffer.alloc(Math.min(need, MiB));
    for (let written = 0; written < need; written += chunk.length) await file.write(chunk, 0, Math.min(chunk.length, need - written));
    await file.sync();
  } finally {
    await file.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
  }
}
