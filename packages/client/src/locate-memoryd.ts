import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How to run the daemon: a command and the arguments before memoryd's own flags. */
export interface MemorydCommand {
  command: string;
  args: string[];
}

/** This module's own file: where the walk for `node_modules/.bin/memoryd` starts. */
const HERE = fileURLToPath(import.meta.url);

/**
 * Finds the `memoryd` to autostart, first match wins:
 * 1. `memorydBin` (the option), a JS entry run with `process.execPath`;
 * 2. env `MEMORYD_BIN`, the same;
 * 3. the first `node_modules/.bin/memoryd` found walking up from this
 *    file (how npm installs `@memoryd/daemon` next to the client), its
 *    symlink resolved with realpath and run with `process.execPath`, so
 *    the daemon runs on the same Node as the client, whatever PATH says;
 * 4. `memoryd` looked up on PATH and run directly.
 */
export function locateMemoryd(memorydBin: string | undefined, env: NodeJS.ProcessEnv, from: string = HERE): MemorydCommand {
  const js = memorydBin || env['MEMORYD_BIN'] || findInstalledBin(dirname(from));
  if (js) return { command: process.execPath, args: [js] };
  return { command: 'memoryd', args: [] };
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
