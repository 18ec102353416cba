import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, trackCloser } from './cleanup.js';

/** A small file system of its own for a test that fills it. */
export interface Tmpfs {
  /** Where it is mounted (a fresh temp dir). */
  dir: string;
  /** Unmounts it (also done by cleanupAll, before the temp dirs are removed). */
  unmount(): Promise<void>;
}

function runText(err: unknown): string {
  const e = err as { stderr?: Buffer | string; message?: string };
  return String(e.stderr ?? e.message ?? err).trim();
}

/**
 * Mounts a tmpfs of `sizeMiB` (read-only if asked) for a test, or says why it cannot: only
 * root may mount (`.ci/run` runs the suite as root; elsewhere the test
 * skips with this reason). The mount goes when cleanupAll runs.
 */
export function mountTmpfs(sizeMiB: number, { readOnly = false } = {}): Tmpfs | { skip: string } {
  if (process.platform !== 'linux') return { skip: `a tmpfs needs Linux, not ${process.platform}` };
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root (.ci/run runs the tests as root)' };
  const dir = tempDir('mfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700${readOnly ? ',ro' : ''}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    return { skip: `mount -t tmpfs failed: ${runText(err)}` };
  }
  const unmount = trackCloser(async () => {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  });
  return { dir, unmount };
}

/**
 * Fills the file system holding `dir` to its last byte with one new file
 * and returns a function that removes it (and so frees the space).
 * Writes shrink from 1 MiB to 1 byte as ENOSPC answers, so nothing a
 * later write could use is left over.
 */
export function fillDisk(dir: string, name = 'filler'): () => void {
  const path = join(dir, name);
  const fd = openSync(path, 'wx');
  try {
    for (const size of [1 << 20, 1 << 16, 4096, 512, 64, 1]) {
      const chunk = Buffer.alloc(size, 0x2a);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}
