import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to run the daemon: a command and the arguments before memoryd's own flags. */
export interface MemorydCommand {
  command: string;
  args: string[];
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
 * the same Node as the client, whatever PATH says.
 */
export function locateMemoryd(memorydBin: string | undefined, env: NodeJS.ProcessEnv, from: string = HERE): MemorydCommand {
  const js = memorydBin || env['MEMORYD_BIN'] || releaseBin(dirname(from)) || findInstalledBin(dirname(from));
  if (js) return { command: process.execPath, args: [js] };
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
