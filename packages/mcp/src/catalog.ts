import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { publishSchema } from './schema.js';
import { Tools } from './tools/all.js';
import type { ToolDefinition } from './tools/tool.js';

/** The `tools/list` entry of a tool: schemas as plain JSON, generated from its types. */
function listEntry(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: publishSchema(tool.input),
    outputSchema: tool.outputSchema,
    annotations: { title: tool.title, ...tool.hints },
  };
}

/**
 * What `tools/list` publishes, generated from the tools' TypeBox types.
 * The bundle (scripts/bundle-shim.mjs) replaces this module with the same
 * value as a JSON literal computed at build time, so a shim answers
 * `tools/list` without loading TypeBox or the tools (a test compares the
 * two).
 */
export const TOOL_CATALOG: readonly Tool[] = Tools.map(listEntry);
