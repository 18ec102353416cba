import { ClientErrorCodes, isClientError } from '@memoryd/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { checkArgs } from './args.js';
import type { MemoryBackend } from './backend.js';
import { failureText } from './errors.js';
import { publishSchema } from './schema.js';
import { Tools } from './tools/all.js';
import { failure, type OnMissing, type ToolContext, type ToolDefinition, type ToolResult } from './tools/tool.js';
import { SHIM_VERSION } from './version.js';

/** Options of {@link createShimServer}. */
export interface ShimServerOptions {
  /** The daemon; the server never connects on its own: the first tool call does. */
  backend: MemoryBackend;
  /** Default `on_missing` of `checkpoint_resume`; default "error". */
  resumeOnMissing?: OnMissing;
}

/**
 * The SDK's Server validates elicitation answers with a JSON Schema
 * validator, by default a fresh Ajv instance. The shim never elicits, so it
 * hands over this one, which refuses: no Ajv is built at start-up, and the
 * bundle (scripts/bundle-shim.mjs) can leave Ajv out entirely, which makes
 * spawning faster.
 */
const noElicitation: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'memoryd-mcp does not elicit input, so it validates no elicitation answer',
  }),
};

const INSTRUCTIONS =
  'memoryd gives each agent id a long-term memory of facts (memory_search, memory_add, memory_reflect) ' +
  'and resumable session checkpoints (checkpoint_save, checkpoint_resume). Use one stable agent_id per ' +
  'agent or project; agent ids are case-sensitive.';

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
 * Validates the arguments, runs the tool, and turns any failure into its
 * pinned text. When the daemon went away under the call (a restart, a
 * crash: ConnectionLost), an idempotent tool (search, add, resume) runs once
 * more, which reconnects (and autostarts when allowed). The client never
 * retries on its own, since not every write may run twice: checkpoint_save
 * and memory_reflect report the failure instead.
 */
async function callTool(tool: ToolDefinition, args: Record<string, unknown> | undefined, ctx: ToolContext): Promise<ToolResult> {
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

/**
 * The MCP server of the shim: the SDK's low-level `Server` (the tools'
 * schemas are TypeBox, not zod, so McpServer's registration does not fit)
 * with a `tools/list` and a `tools/call` handler. Not yet connected to a
 * transport.
 */
export function createShimServer(options: ShimServerOptions): Server {
  const ctx: ToolContext = { backend: options.backend, resumeOnMissing: options.resumeOnMissing ?? 'error' };
  const byName = new Map(Tools.map((t) => [t.name, t]));
  // Built once: the schemas never change while the process runs.
  const listed = Tools.map(listEntry);
  const server = new Server(
    { name: 'memoryd', version: SHIM_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: noElicitation },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (tool === undefined) {
      return failure(`unknown tool ${JSON.stringify(name)}; the tools are ${Tools.map((t) => t.name).join(', ')}`);
    }
    return callTool(tool, args, ctx);
  });
  return server;
}
