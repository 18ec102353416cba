// One timed spawn of a benchmark subject for `npm run bench:shim`: an MCP
// server started through the SDK's own Client + StdioClientTransport (what
// an MCP client does for every session) and timed from spawn to `tools/list`
// answered, or a bare `node -e 0` timed from spawn to exit (the floor).
//
// Every pid started here is recorded until it has exited, and killed with
// SIGKILL on process exit, so an error or a hang never leaves a server
// behind. Every wait is bounded.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** Bound on one spawn → initialize → tools/list, ms; a hang past it is a failure. */
export const READY_TIMEOUT_MS = 15_000;

/** Bound on a child's exit after its stdin is closed (then SIGTERM, then SIGKILL), ms. */
export const EXIT_TIMEOUT_MS = 3_000;

/** How many stderr lines of a child are kept to explain a failure. */
const STDERR_TAIL_LINES = 20;

/** Pids of children that have not exited yet. */
const livePids = new Set();
let exitHookInstalled = false;

/** Kills every live child by pid; synchronous so it can run in 'exit'. */
export function killAllSync() {
  for (const pid of livePids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: it exited between the record and the signal.
    }
  }
  livePids.clear();
}

function track(pid) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // children.mjs turns SIGINT/SIGTERM/SIGHUP into process.exit, which
    // fires this too.
    process.on('exit', killAllSync);
  }
  livePids.add(pid);
}

/**
 * Rejects after `ms` with `message` unless `promise` settles first.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {() => string} message
 * @returns {Promise<T>}
 */
function within(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Keeps the last lines of a stream, so a failure can show why. */
function tailOf(stream) {
  const lines = [];
  let partial = '';
  stream?.setEncoding?.('utf8');
  stream?.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((l) => l !== ''));
    lines.splice(0, Math.max(0, lines.length - STDERR_TAIL_LINES));
  });
  return () => [...lines, ...(partial === '' ? [] : [partial])].map((l) => `  ${l}`).join('\n') || '  (no stderr output)';
}

/** Waits (bounded) for `pid` to be gone, then SIGKILLs it if it is not. */
async function reap(pid, exited) {
  const gone = await within(exited.then(() => true), EXIT_TIMEOUT_MS, () => '').catch(() => false);
  if (!gone) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  livePids.delete(pid);
  return gone;
}

/**
 * Spawns an MCP stdio server with the SDK client, completes `initialize`
 * and `tools/list`, and closes it the way MCP clients do (stdin EOF; the SDK
 * follows with SIGTERM and SIGKILL).
 * @param {{name: string, command: string, args: string[], env?: Record<string, string>,
 *   checkTools?: (names: string[]) => string|undefined}} subject
 * @returns {Promise<{readyMs: number, tools: string[], exitedOnEof: boolean}>}
 */
export async function timeMcpServer(subject) {
  const transport = new StdioClientTransport({
    command: subject.command,
    args: subject.args,
    env: subject.env,
    stderr: 'pipe',
  });
  const stderrTail = tailOf(transport.stderr);
  const client = new Client({ name: 'memoryd-bench-shim', version: '0.1.0' });
  /** @type {Promise<void>} resolves when the child's stdio has closed */
  let closed = new Promise(() => {});
  let pid = null;
  const startedAt = performance.now();
  try {
    const ready = (async () => {
      const connecting = client.connect(transport);
      // The transport spawns synchronously inside start(); record the pid
      // before anything can fail so the exit hook can always kill it.
      pid = transport.pid;
      if (pid !== null) {
        track(pid);
        closed = new Promise((resolve) => {
          const prev = transport.onclose;
          transport.onclose = () => {
            prev?.();
            resolve();
          };
        });
      }
      await connecting;
      return client.listTools();
    })();
    const listed = await within(ready, READY_TIMEOUT_MS, () =>
      `${subject.name}: no tools/list answer within ${READY_TIMEOUT_MS} ms of spawning; stderr:\n${stderrTail()}`,
    );
    const readyMs = performance.now() - startedAt;
    const tools = listed.tools.map((t) => t.name);
    const problem = subject.checkTools?.(tools);
    if (problem) throw new Error(`${subject.name}: ${problem}`);
    return { readyMs, tools, exitedOnEof: await closeAndReap(client, pid, closed) };
  } catch (err) {
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await reap(pid, closed);
    }
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(message.includes('stderr:') ? message : `${message}\n${subject.name} stderr:\n${stderrTail()}`, { cause: err });
  }
}

/**
 * Closes stdin and waits for the child to exit by itself; reports whether
 * it did within EXIT_TIMEOUT_MS (a well-behaved stdio server exits on EOF).
 */
async function closeAndReap(client, pid, closed) {
  const eof = performance.now();
  // Client.close() → transport.close(): stdin.end(), ≤ 2 s, SIGTERM, ≤ 2 s, SIGKILL.
  const closing = client.close().catch(() => {});
  const exitedOnEof = await within(closed.then(() => performance.now() - eof < 2_000), EXIT_TIMEOUT_MS, () => '').catch(() => false);
  await within(closing, 2 * EXIT_TIMEOUT_MS, () => '').catch(() => {});
  if (pid !== null) await reap(pid, closed);
  return exitedOnEof;
}

/**
 * Spawns `node -e 0` with piped stdio (as the SDK transport does) and times
 * spawn to exit: the cost of starting Node itself.
 * @returns {Promise<{readyMs: number}>}
 */
export async function timeBareNode() {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not spawn ${process.execPath}`);
  track(child.pid);
  const exited = new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', reject);
  });
  child.stdout.resume();
  child.stderr.resume();
  try {
    const { code, signal } = await within(exited, READY_TIMEOUT_MS, () => `node -e 0 did not exit within ${READY_TIMEOUT_MS} ms`);
    const readyMs = performance.now() - startedAt;
    if (code !== 0) throw new Error(`node -e 0 exited with ${code ?? signal}`);
    return { readyMs };
  } finally {
    await reap(child.pid, exited.catch(() => {}));
  }
}
