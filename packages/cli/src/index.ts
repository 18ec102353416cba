// The public surface of @memoryd/cli: the memoryctl command for embedding
// (tests run the bin). Adding a symbol here makes it public API.

export { HELP, main } from './bin/main.js';
export { CLI_VERSION } from './version.js';
