import { spawn } from 'node:child_process';
import { cleanEnv, trackPid, untrackPid, withTimeout } from '@memoryd/test-support';
import { SHIM_BIN } from './daemon.js';

/** A shim process driven byte by byte, for the process contract. */
export interface RawShim {
  pid: number;
  /** Writes one JSON-RPC message as a line. */
  send(message: object): void;
  /** Resolves with the first stdout message with this id (bounded). */
  response(id: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Ends stdin, as an MCP client does to end the session. */
  endInput(): void;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (and its output is complete). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node bin/memoryd-mcp.js ARGS` with pipes on all three streams. */
export function spawnShim(args: string[], env: Record<string, string | undefined> = {}): RawShim {
  const child = spawn(process.execPath, [SHIM_BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the shim');
  trackPid(pid);
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => {
      untrackPid(pid);
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    }),
  );
  const find = (id: number): Record<string, unknown> | undefined =>
    out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((m) => m['id'] === id);
  return {
    pid,
    send: (m) => child.stdin.write(JSON.stringify(m) + '\n'),
    response: (id, timeoutMs = 20_000) =>
      withTimeout(
        (async () => {
          for (;;) {
            const m = find(id);
            if (m !== undefined) return m;
            if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the shim exited before answering ${id}; stderr:\n${err}`);
            await new Promise<void>((r) => waiters.push(r));
          }
        })(),
        timeoutMs,
        `the shim's answer to request ${id}`,
      ),
    endInput: () => child.stdin.end(),
    stdout: () => out,
    stderr: () => err,
    exited,
  };
}

/** Runs the shim to completion with stdin closed (for --help, --version, bad flags), bounded. */
export async function runShim(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const shim = spawnShim(args, env);
  shim.endInput();
  const { code } = await withTimeout(shim.exited, 10_000, `memoryd-mcp ${args.join(' ')} to exit`);
  return { code, stdout: shim.stdout(), stderr: shim.stderr() };
}

/** The MCP initialize request. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
};
