import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`, one directory at a time: creates what is missing of `path`,
 * each with `mode`, and leaves what exists. Node 20's `mkdir(…, {recursive:
 * true})` never returns for a path under one that refuses new entries
 * with ENOENT (`/proc/x/y`): a daemon given such a data dir hung instead
 * of failing. A failure here names the directory that could not be made.
 */
export async function makeDirs(path: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    let found;
    try {
      found = await stat(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        // ENOTDIR, EACCES: mkdir of the path says it the way a user expects (`mkdir '…/data'`).
        await mkdir(path, { mode });
        return;
      }
      missing.push(at);
      if (dirname(at) === at) break;
      continue;
    }
    if (!found.isDirectory()) await mkdir(path, { mode });
    break;
  }
  for (const dir of missing.reverse()) {
    await mkdir(dir, { mode }).catch((err: NodeJS.ErrnoException) => {
      // Another process made it meanwhile: as good as made.
      if (err.code !== 'EEXIST') throw err;
    });
  }
}
