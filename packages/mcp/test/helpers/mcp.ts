import assert from 'node:assert/strict';
import { DaemonClient } from '@memoryd/client';
import { createShimServer, type OnMissing } from '@memoryd/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import AjvDraft07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { cleanEnv, trackCloser, trackPid, untrackPid, withTimeout } from '@memoryd/test-support';
import { SHIM_BIN } from './daemon.js';

/** Bound of each MCP request a test makes. */
export const CALL_TIMEOUT_MS = 20_000;

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/** An MCP client session with the shim, and validators of what `tools/list` gave. */
export interface Session {
  client: Client;
  /** `tools/list` as received. */
  tools: Tool[];
  /** Calls a tool (bounded). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Validates `structuredContent` against the tool's received outputSchema, both dialects. */
  assertValid(name: string, structured: unknown): void;
  close(): Promise<void>;
}

/**
 * Compiles every received outputSchema with two independent validators:
 * Ajv in strict mode for draft-07 and for 2020-12. Strict mode also fails
 * the compile on unknown keywords and loose types, so a schema that only
 * one dialect accepts is caught here.
 */
function validatorsFor(tools: Tool[]): Map<string, Validate[]> {
  const draft07 = new AjvDraft07.default({ strict: true, allErrors: true });
  const draft2020 = new Ajv2020.default({ strict: true, allErrors: true });
  const out = new Map<string, Validate[]>();
  for (const t of tools) {
    assert.ok(t.outputSchema, `${t.name} has no outputSchema`);
    out.set(t.name, [draft07.compile(t.outputSchema), draft2020.compile(t.outputSchema)]);
  }
  return out;
}

function session(client: Client, tools: Tool[], close: () => Promise<void>): Session {
  const validators = validatorsFor(tools);
  return {
    client,
    tools,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args ?? {} }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult,
    assertValid: (name, structured) => {
      const vs = validators.get(name);
      assert.ok(vs, `no outputSchema received for ${name}`);
      for (const [i, v] of vs.entries()) {
        assert.ok(v(structured), `${name} structuredContent fails its outputSchema (${i === 0 ? 'draft-07' : '2020-12'}): ${JSON.stringify(v.errors)}\n${JSON.stringify(structured)}`);
      }
    },
    close,
  };
}

/** Options of {@link inProcess}. */
export interface InProcessOptions {
  socket: string;
  resumeOnMissing?: OnMissing;
}

/**
 * The shim's server in this process with a real DaemonClient (no
 * autostart), linked to a real SDK Client over InMemoryTransport.
 */
export async function inProcess(opts: InProcessOptions): Promise<Session> {
  const backend = new DaemonClient({ socket: opts.socket, autostart: false, env: cleanEnv(), requestTimeoutMs: CALL_TIMEOUT_MS });
  const server = createShimServer({ backend, ...(opts.resumeOnMissing ? { resumeOnMissing: opts.resumeOnMissing } : {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'memoryd-mcp-test', version: '0' });
  await withTimeout(client.connect(clientSide), CALL_TIMEOUT_MS, 'in-process initialize');
  const close = trackCloser(async () => {
    await client.close();
    await server.close();
    await backend.close();
  });
  const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
  return session(client, tools, close);
}

/** A shim process under test. */
export interface StdioSession extends Session {
  pid: number;
  stderr(): string;
}

/**
 * Spawns the built bin (`node bin/memoryd-mcp.js ARGS`) through the SDK's
 * StdioClientTransport, initializes, and lists the tools.
 */
export async function overStdio(args: string[], env: Record<string, string | undefined> = {}): Promise<StdioSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SHIM_BIN, ...args], env: cleanEnv(env), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const client = new Client({ name: 'memoryd-mcp-test', version: '0' });
  await withTimeout(client.connect(transport), CALL_TIMEOUT_MS, 'the shim to initialize');
  const pid = transport.pid;
  assert.ok(pid !== null, 'the shim has no pid');
  trackPid(pid);
  // StdioClientTransport.close ends stdin, then SIGTERM, then SIGKILL (2 s apart).
  const close = trackCloser(async () => {
    await withTimeout(client.close(), 10_000, `shim ${pid} to close`);
    untrackPid(pid);
  });
  const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
  return { ...session(client, tools, close), pid, stderr: () => err };
}

/** A successful result: one text block and `structuredContent` valid against the received schema. */
export function assertSuccess(s: Session, name: string, r: CallToolResult): { text: string; structured: Record<string, unknown> } {
  assert.notEqual(r.isError, true, `${name} failed: ${JSON.stringify(r.content)}`);
  assert.equal(r.content.length, 1, 'exactly one content block');
  const block = r.content[0]!;
  assert.equal(block.type, 'text');
  assert.ok(r.structuredContent !== undefined && r.structuredContent !== null, `${name} success without structuredContent`);
  s.assertValid(name, r.structuredContent);
  assertNoNulls(r.structuredContent);
  return { text: (block as { text: string }).text, structured: r.structuredContent };
}

/** A failed result: `isError`, one text block, never `structuredContent`. Returns the text. */
export function assertFailure(r: CallToolResult): string {
  assert.equal(r.isError, true, `expected an error, got ${JSON.stringify(r)}`);
  assert.equal('structuredContent' in r, false, `an error carried structuredContent: ${JSON.stringify(r)}`);
  assert.equal(r.content.length, 1, 'exactly one content block');
  const block = r.content[0]!;
  assert.equal(block.type, 'text');
  return (block as { text: string }).text;
}

/**
 * Optional keys are absent, never null (docs/api-stability.md "MCP tools"). A checkpoint's `state`
 * is the agent's own data and may hold nulls: it is not descended into.
 */
function assertNoNulls(value: unknown, path = 'structuredContent'): void {
  assert.notEqual(value, null, `${path} is null`);
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as object)) if (k !== 'state') assertNoNulls(v, `${path}.${k}`);
  }
}
