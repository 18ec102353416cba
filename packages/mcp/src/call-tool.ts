import { ClientErrorCodes, isClientError } from '@memoryd/client';
import { checkArgs } from './args.js';
import { failureText } from './errors.js';
import { Tools } from './tools/all.js';
import { failure, type ToolContext, type ToolDefinition, type ToolResult } from './tools/tool.js';

// Loaded on the first tool call (server.ts imports it dynamically): the
// tools, TypeBox validation and the daemon client are not needed to answer
// initialize and tools/list, and each spawn is the user's wait.

const byName = new Map(Tools.map((t) => [t.name, t]));

/**
 * Validates the arguments, runs the tool, and turns any failure into its
 * pinned text. When the daemon went away under the call (a restart, a
 * crash: ConnectionLost), an idempotent tool (search, add, resume) runs once
 * more, which reconnects (and autostarts when allowed). The client never
 * retries on its own, since not every write may run twice: checkpoint_save
 * and memory_reflect report the failure instead.
 */
async function run(tool: ToolDefinition, args: Record<string, unknown> | undefined, ctx: ToolContext): Promise<ToolResult> {
  const checked = checkArgs(tool.input, args);
  if (!checked.ok) return failure(checked.text);
  try {
    return await tool.run(checked.value, ctx);
  } catch (err) {
    if (!tool.hints.idempotentHint || !isClientError(err, ClientErrorCodes.ConnectionLost)) {
      return failure(failureText(tool.name, err));
    }
  }
  try {
    return await tool.run(checked.value, ctx);
  } catch (err) {
    return failure(failureText(tool.name, err));
  }
}

/** Runs the tool called `name`, or fails with the list of tools. */
export async function callTool(name: string, args: Record<string, unknown> | undefined, ctx: ToolContext): Promise<ToolResult> {
  const tool = byName.get(name);
  if (tool === undefined) {
    return failure(`unknown tool ${JSON.stringify(name)}; the tools are ${Tools.map((t) => t.name).join(', ')}`);
  }
  return run(tool, args, ctx);
}
