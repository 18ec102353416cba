import { readFileSync } from 'node:fs';

// Read from the package manifest (dist/version.js sits one level below the
// package root), so `--version` and the published package never disagree.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** memoryctl's version (its package version). */
export const CLI_VERSION: string = manifest.version;
