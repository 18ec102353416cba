import { readFileSync } from 'node:fs';

// Read from the package manifest, so `--version`, the MCP server info and
// the published package never disagree. Both the compiled file
// (dist/version.js) and the bundle (dist/memoryd-mcp.mjs) sit one level
// below the package root, so the same relative URL works for both.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** This shim's version (its package version). */
export const SHIM_VERSION: string = manifest.version;
