// The public surface of @memoryd/mcp. Adding a symbol here makes it public
// API: do so intentionally.

export type { MemoryBackend } from './backend.js';
export { HELP, parseInvocation, UsageError, type Invocation, type ShimConfig } from './config.js';
export { createShimServer, type ShimServerOptions } from './server.js';
export { Tools } from './tools/all.js';
export type { OnMissing, ToolDefinition, ToolResult } from './tools/tool.js';
export { SHIM_VERSION } from './version.js';
