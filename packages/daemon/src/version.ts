import { createRequire } from 'node:module';

// Read once from the package manifest, so `--version`, `daemon.hello` and
// the published package never disagree.
const require = createRequire(import.meta.url);
const manifest = require('../package.json') as { version: string };

/** This daemon's version (its package version). */
export const DAEMON_VERSION: string = manifest.version;
