import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to run the daemon: a command and the arguments before memoryd's own flags. */
export interface MemorydCommand {
  command: string;
  args: string[];
}

/**
 * Node's options for the daemon's process, before its JS entry: V8's
 * helper threads (the background compiler, the concurrent and parallel
 * garbage collector) limited to one. On a machine of two cores, a
 * client waiting on one and the daemon answering on the other, every
 * further runnable thread takes a core from one of them for a
 * scheduler's slice: V8's four helpers put most of a fresh daemon's
 * slow searches there (docs/adr/0024-one-v8-helper-thread.md). Every
 * launcher memoryd ships (autostart, service units, `npm start`, the
 * benches) runs the daemon with them.
 */
export const MEMORYD_NODE_OPTIONS: readonly string[] = ['--v8-pool-size=1'];

/**
 * glibc's tunable for the daemon's process: its malloc asks the kernel
 * for transparent huge pages (madvise) for the large buffers it maps, as
 * a restart's index image is (76 MB at a million facts). Each fresh 4 KiB
 * page costs a fault where a 2 MiB page costs one for 512 of them: on the
 * 2-core VM, reading and checking that image took 330 ms with small pages
 * and some 50 with huge ones, and the first answer after a start came
 * 535-623 ms from spawn where it came 280-482 (median 306) with them
 * (docs/adr/0025-huge-pages-for-index-images.md). Where THP is off, on
 * another libc, or on macOS, nothing reads it and nothing changes. Every
 * launcher memoryd ships sets it, as it passes MEMORYD_NODE_OPTIONS.
 */
export const MEMORYD_GLIBC_TUNABLES = 'glibc.malloc.hugetlb=1';

/**
 * The environment to run memoryd in: `env` with
 * {@link MEMORYD_GLIBC_TUNABLES} added to its GLIBC_TUNABLES (a
 * colon-separated list), unless the user set that tunable already: theirs
 * wins. Returns a copy; `env` is left as it is.
 */
export function memorydEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tunables = env['GLIBC_TUNABLES'] ?? '';
  const name = MEMORYD_GLIBC_TUNABLES.slice(0, MEMORYD_GLIBC_TUNABLES.indexOf('='));
  if (tunables.split(':').some((t) => t.startsWith(`${name}=`))) return { ...env };
  return { ...env, GLIBC_TUNABLES: tunables === '' ? MEMORYD_GLIBC_TUNABLES : `${tunables}:${MEMORYD_GLIBC_TUNABLES}` };
}

/** This module's own file (or the bundle it is in): where the search for memoryd starts. */
const HERE = fileURLToPath(import.meta.url);

/**
 * Finds the `memoryd` to autostart, first match wins:
 * 1. `memorydBin` (the option), a JS entry run with `process.execPath`;
 * 2. env `MEMORYD_BIN`, the same;
 * 3. `../bin/memoryd.js` beside this file's folder: the release package
 *    (scripts/pack.mjs) carries its bundles in `dist/` and all three bins
 *    in `bin/`, so a front end starts the daemon of its own release;
 * 4. the first `node_modules/.bin/memoryd` found walking up from this
 *    file (how npm installs `@memoryd/daemon` next to the client), its
 *    symlink resolved with realpath;
 * 5. `memoryd` looked up on PATH and run directly.
 * A JS entry (1 to 4) runs with `process.execPath`, so the daemon runs on
 * the same Node as the client, whatever PATH says, with
 * {@link MEMORYD_NODE_OPTIONS}.
 */
export function locateMemoryd(memorydBin: string | undefined, env: NodeJS.ProcessEnv, from: string = HERE): MemorydCommand {
  const js = memorydBin || env['MEMORYD_BIN'] || releaseBin(dirname(from)) || findInstalledBin(dirname(from));
  if (js) return { command: process.execPath, args: [...MEMORYD_NODE_OPTIONS, js] };
  return { command: 'memoryd', args: [] };
}

function releaseBin(dir: string): string | undefined {
  const bin = join(dir, '..', 'bin', 'memoryd.js');
  return existsSync(bin) ? realpathSync(bin) : undefined;
}

function findInstalledBin(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      return realpathSync(join(dir, 'node_modules', '.bin', 'memoryd'));
    } catch {
      // Absent or a dangling link: a higher node_modules may hold a good one.
    }
    if (dirname(dir) === dir) return undefined;
  }
}
