// The benches' own packages (scripts/bench/package.json: the SQLite FTS5
// peer, the reference MCP memory server, GloVe and WordNet for the weak
// fake embedders) are not the workspace's: `npm ci` at the root leaves
// them out, so a contributor's install stays light. A bench installs them
// here, once, the first time it needs them.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const LOCK = fileURLToPath(new URL('./package-lock.json', import.meta.url));
/** What `npm ci` writes last: its mtime says the install is as new as the lock. */
const INSTALLED = fileURLToPath(new URL('./node_modules/.package-lock.json', import.meta.url));

/** Whether the benches' packages are installed, from the lock as it is. */
function installed() {
  try {
    return statSync(INSTALLED).mtimeMs >= statSync(LOCK).mtimeMs;
  } catch {
    return false;
  }
}

/**
 * Installs the benches' packages into scripts/bench/node_modules unless
 * they are there already (`npm ci` from scripts/bench/package-lock.json;
 * it needs the npm registry, and a C++ toolchain where better-sqlite3 has
 * no prebuilt binary). Says so on stderr first.
 */
export async function ensureBenchDeps() {
  if (installed()) return;
  process.stderr.write('bench: installing the benches\' own packages once, into scripts/bench/node_modules (npm ci)\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: HERE, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm ci in ${HERE} failed (exit ${r.status ?? r.signal}); the benches need their packages`);
}
