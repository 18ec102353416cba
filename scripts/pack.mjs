#!/usr/bin/env node
// `npm run pack`: the installable release, one public package `memoryd`
// that carries the three bins (memoryd, memoryd-mcp, memoryctl), so
//   npm install -g ./memoryd-<version>.tgz
// puts them on the PATH with no checkout. It holds the built bundles, not
// the workspace: dist/memoryd.cjs (the daemon), dist/memoryd-mcp.cjs and
// dist/memoryctl.cjs with their V8 code caches and the loader, the index
// worker's bundle, and the committed bins, which run a bundle when no
// .tsbuildinfo says it is stale (there is none in the release). Its only dependencies are what the
// daemon bundle leaves out: level and classic-level, which load a native
// addon beside their own files, pinned as the daemon pins them. Front ends
// start the memoryd of their own release (bin/ beside dist/).
//
//   node scripts/pack.mjs [--out DIR]    (default DIR: dist-pack/)
// Prints the tarball's path on stdout. Needs `npm run build` first (npm run
// pack does both).
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './bundle-cjs.mjs';

const { values } = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  process.stdout.write('usage: node scripts/pack.mjs [--out DIR]   (after npm run build; prints the tarball path)\n');
  process.exit(0);
}
const out = resolve(values.out ?? join(ROOT, 'dist-pack'));

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

const pkg = (name) => JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8'));
const daemon = pkg('daemon');
const versions = new Set(['protocol', 'daemon', 'client', 'mcp', 'cli'].map((n) => pkg(n).version));
if (versions.size !== 1) fail(`the packages disagree on their version (${[...versions].join(', ')}); one release has one version`);
const version = daemon.version;

/** The built files the release carries: [from (repo-relative), to (release-relative)]. */
const FILES = [
  ['packages/daemon/bin/memoryd.js', 'bin/memoryd.js'],
  ['packages/mcp/bin/memoryd-mcp.js', 'bin/memoryd-mcp.js'],
  ['packages/cli/bin/memoryctl.js', 'bin/memoryctl.js'],
  ['packages/daemon/dist/memoryd.cjs', 'dist/memoryd.cjs'],
  ['packages/daemon/dist/memoryd.v8cache', 'dist/memoryd.v8cache'],
  ['packages/daemon/dist/memoryd-index-worker.mjs', 'dist/memoryd-index-worker.mjs'],
  ['packages/mcp/dist/memoryd-mcp.cjs', 'dist/memoryd-mcp.cjs'],
  ['packages/mcp/dist/memoryd-mcp.v8cache', 'dist/memoryd-mcp.v8cache'],
  ['packages/cli/dist/memoryctl.cjs', 'dist/memoryctl.cjs'],
  ['packages/cli/dist/memoryctl.v8cache', 'dist/memoryctl.v8cache'],
  ['packages/cli/dist/web/index.html', 'dist/web/index.html'],
  ['packages/cli/dist/web/app.js', 'dist/web/app.js'],
  ['packages/cli/dist/web/app.css', 'dist/web/app.css'],
  ['scripts/bundle-loader.cjs', 'dist/bundle-loader.cjs'],
  ['README.md', 'README.md'],
  ['LICENSE', 'LICENSE'],
];

// Every bundle must be built and current: the release would otherwise carry stale code.
for (const [bundle, pkgDir] of [
  ['packages/daemon/dist/memoryd.cjs', 'packages/daemon'],
  ['packages/daemon/dist/memoryd-index-worker.mjs', 'packages/daemon'],
  ['packages/mcp/dist/memoryd-mcp.cjs', 'packages/mcp'],
  ['packages/cli/dist/memoryctl.cjs', 'packages/cli'],
]) {
  const built = statSync(join(ROOT, bundle), { throwIfNoEntry: false });
  const compiled = statSync(join(ROOT, pkgDir, 'dist', '.tsbuildinfo'), { throwIfNoEntry: false });
  if (built === undefined || (compiled !== undefined && built.mtimeMs < compiled.mtimeMs)) fail(`${bundle} is missing or older than its tsc build: run npm run build`);
}

/** Packages a bundle loads from node_modules at run time (Node's own modules aside). */
function externalsOf(file) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  // Static imports (esbuild writes one a line), dynamic imports and requires.
  const ids = [...text.matchAll(/^(?:import|export)\b[^\n]*?\bfrom\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|\brequire\(\s*"([^"]+)"\s*\)/gm)].map((m) => m[1] ?? m[2] ?? m[3]);
  const builtin = new Set(builtinModules);
  return [...new Set(ids.filter((id) => !id.startsWith('node:') && !id.startsWith('.') && !builtin.has(id)))].sort();
}
for (const front of ['packages/mcp/dist/memoryd-mcp.cjs', 'packages/cli/dist/memoryctl.cjs']) {
  const left = externalsOf(front);
  if (left.length > 0) fail(`${front} loads ${left.join(', ')} from node_modules: a front end's bundle must carry everything`);
}
/**
 * Left out of the bundle and of the release alike: pg's optional libpq
 * binding, which pg requires only when asked for (`pg.native`); memoryd
 * uses pg's pure JavaScript client, bundled (ADR 0027).
 */
const NOT_CARRIED = new Set(['pg-native']);
const dependencies = {};
for (const id of new Set([...externalsOf('packages/daemon/dist/memoryd.cjs'), ...externalsOf('packages/daemon/dist/memoryd-index-worker.mjs')])) {
  if (NOT_CARRIED.has(id)) continue;
  const pinned = daemon.dependencies?.[id];
  if (pinned === undefined) fail(`the daemon bundle loads ${id}, which @memoryd/daemon does not depend on`);
  dependencies[id] = pinned;
}

const stage = join(out, 'stage', 'memoryd');
rmSync(join(out, 'stage'), { recursive: true, force: true });
mkdirSync(join(stage, 'bin'), { recursive: true });
mkdirSync(join(stage, 'dist', 'web'), { recursive: true });
for (const [from, to] of FILES) copyFileSync(join(ROOT, from), join(stage, to));
cpSync(join(ROOT, 'docs'), join(stage, 'docs'), { recursive: true });
const manifest = {
  name: 'memoryd',
  version,
  description: 'memoryd: a per-user memory service for AI agents (daemon memoryd, MCP shim memoryd-mcp, CLI memoryctl)',
  license: daemon.license ?? 'MIT',
  keywords: ['mcp', 'memory', 'ai-agents', 'model-context-protocol', 'leveldb'],
  bin: { memoryd: 'bin/memoryd.js', 'memoryd-mcp': 'bin/memoryd-mcp.js', memoryctl: 'bin/memoryctl.js' },
  files: ['bin', 'dist', 'docs', 'README.md', 'LICENSE'],
  engines: { node: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node },
  os: ['linux', 'darwin'],
  dependencies,
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

mkdirSync(out, { recursive: true });
const tarball = join(out, `memoryd-${version}.tgz`);
rmSync(tarball, { force: true });
execFileSync('npm', ['pack', '--pack-destination', out, '--loglevel', 'error'], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
if (!existsSync(tarball)) fail(`npm pack wrote no ${tarball}`);
rmSync(join(out, 'stage'), { recursive: true, force: true });
process.stdout.write(`${tarball}\n`);
