#!/usr/bin/env node
// Runs every compiled test file (packages/*/dist-test/**/*.test.js) with
// node's test runner. Node 20's --test takes no globs, so we list them.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (name.endsWith('.test.js')) files.push(relative(root, full));
  }
};
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', pkg, 'dist-test');
  try {
    if (statSync(dir).isDirectory()) walk(dir);
  } catch {
    // A package without tests.
  }
}
if (files.length === 0) {
  console.error('run-tests: no compiled tests found; run `npm run build` first');
  process.exit(1);
}
files.sort();
const extra = process.argv.slice(2);
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=120000', ...extra, ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
