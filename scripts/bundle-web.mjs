#!/usr/bin/env node
// Bundles the page of `memoryctl ui` (packages/cli/web, compiled by
// `tsc -b` into packages/cli/dist-web) with preact and htm into one
// minified ES module, packages/cli/dist/web/app.js, beside the page's
// index.html and app.css: the files the page's server reads
// (packages/cli/src/ui/assets.ts) and the release carries in dist/web/.
// No framework toolchain: esbuild, as for the other bundles.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './bundle-cjs.mjs';

const out = join(ROOT, 'packages/cli/dist/web');
mkdirSync(out, { recursive: true });
const { build } = await import('esbuild');
await build({
  absWorkingDir: ROOT,
  entryPoints: ['packages/cli/dist-web/main.js'],
  outfile: join(out, 'app.js'),
  bundle: true,
  platform: 'browser',
  format: 'esm',
  // Browsers of the last few years: what <dialog>, :focus-visible and ES2022 need.
  target: ['chrome100', 'firefox100', 'safari15.4'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'app.css']) copyFileSync(join(ROOT, 'packages/cli/web', file), join(out, file));
