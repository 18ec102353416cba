import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { MemoryBackend } from './backend.js';
import { TOOL_CATALOG } from './catalog.js';
import type { OnMissing, ToolContext } from './tools/tool.js';
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

/**
 * The MCP server of the shim: the SDK's low-level `Server` (the tools'
 * schemas are TypeBox, not zod, so McpServer's registration does not fit)
 * with a `tools/list` and a `tools/call` handler. Not yet connected to a
 * transport.
 */
export function createShimServer(options: ShimServerOptions): Server {
  const ctx: ToolContext = { backend: options.backend, resumeOnMissing: options.resumeOnMissing ?? 'error' };
  const server = new Server(
    { name: 'memoryd', version: SHIM_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: noElicitation },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOL_CATALOG] }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    // Loaded on first use: start-up answers tools/list without it.
    const { callTool } = await import('./call-tool.js');
    return callTool(request.params.name, request.params.arguments, ctx);
  });
  return server;
}
