#!/usr/bin/env node
// Runs every compiled test file (packages/*/dist-test/**/*.test.js) with
// node's test runner. Node 20's --test takes no globs, so we list them.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
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
const run = (list, env) =>
  spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=120000', ...extra, ...list], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  }).status ?? 1;
const status = run(files, {});

// The suites that hold for every store backend (marked in their first
// line) run again with each test daemon on PostgreSQL, when the PG*
// variables name a server (.ci/run starts one; ADR 0027).
const MARK = '// store: every backend.';
const everyBackend = files.filter((f) => readFileSync(join(root, f), 'utf8').startsWith(MARK));
if (process.env.PGHOST === undefined && process.env.PGDATABASE === undefined) {
  console.log(`run-tests: the PostgreSQL pass of ${everyBackend.length} suites was skipped: no PostgreSQL server (PGHOST and PGDATABASE are unset; .ci/run starts one)`);
  process.exit(status);
}
console.log(`run-tests: ${everyBackend.length} suites again with the daemon on PostgreSQL (MEMORYD_TEST_STORE=postgres)`);
const pgStatus = run(everyBackend, { MEMORYD_TEST_STORE: 'postgres' });
process.exit(status !== 0 ? status : pgStatus);
