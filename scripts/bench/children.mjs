// Child processes and temp dirs of one bench run. Everything started or
// created here is recorded, so that exit, an error or Ctrl-C never leaves a
// daemon running or a directory behind.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bound on a child's readiness (its socket accepting connections), ms. */
export const READY_TIMEOUT_MS = 10_000;

/** Fails before anything is measured when the daemon was never built. */
export function assertDaemonBuilt() {
  const compiled = fileURLToPath(new URL('../../packages/daemon/dist/bin/main.js', import.meta.url));
  if (!fs.existsSync(compiled)) throw new Error(`${compiled} is missing: build first (npm run build)`);
}

/** Bound on a graceful stop before SIGKILL, ms (docs/operations.md "Stopping": exit within 5 s). */
export const STOP_TIMEOUT_MS = 6_000;

/** How many stderr lines of a child are kept to explain a failure. */
const STDERR_TAIL_LINES = 20;

/** @type {Set<Child>} */
const children = new Set();
/** @type {Set<string>} */
const tempDirs = new Set();
let hooksInstalled = false;

/**
 * A started child: its process, whether it has exited, and the last lines
 * it wrote on stderr.
 * @typedef {{name: string, proc: import('node:child_process').ChildProcess, pid: number,
 *   exited: Promise<{code: number|null, signal: string|null}>, done: boolean, stderrTail: string[]}} Child
 */

/**
 * Creates a temp dir under os.tmpdir(), removed on exit.
 * @param {string} prefix
 */
export function makeTempDir(prefix) {
  installHooks();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * Starts `node args…` with stdout ignored and stderr kept (its tail explains
 * a failure to start).
 * @param {string} name for messages
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env] its environment (default: this process's)
 * @param {{ipc?: boolean}} [options] `ipc`: with an IPC channel (`proc.send`, 'message')
 * @returns {Child}
 */
export function startNode(name, args, env = process.env, { ipc = false } = {}) {
  installHooks();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe', ...(ipc ? /** @type {const} */ (['ipc']) : [])], env });
  if (proc.pid === undefined) throw new Error(`${name}: could not spawn ${process.execPath}`);
  /** @type {Child} */
  const child = { name, proc, pid: proc.pid, exited: Promise.resolve({ code: null, signal: null }), done: false, stderrTail: [] };
  let partial = '';
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    child.stderrTail.push(...lines.filter((l) => l !== ''));
    child.stderrTail.splice(0, Math.max(0, child.stderrTail.length - STDERR_TAIL_LINES));
  });
  child.exited = new Promise((resolve) => {
    proc.once('exit', (code, signal) => {
      child.done = true;
      children.delete(child);
      if (partial !== '') child.stderrTail.push(partial);
      resolve({ code, signal });
    });
  });
  children.add(child);
  return child;
}

/**
 * Waits until `socketPath` accepts a connection, polling, for at most
 * `timeoutMs`. Fails at once if the child exits first, with its stderr tail.
 * @param {Child} child
 * @param {string} socketPath
 * @param {number} [timeoutMs]
 */
export async function waitForSocket(child, socketPath, timeoutMs = READY_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.done) throw new Error(`${child.name} exited before listening:\n${tail(child)}`);
    if (await canConnect(socketPath)) return;
    if (Date.now() >= deadline) {
      throw new Error(`${child.name} did not accept connections on ${socketPath} within ${timeoutMs} ms:\n${tail(child)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** @param {string} socketPath @returns {Promise<boolean>} */
function canConnect(socketPath) {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 1_000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/** @param {Child} child */
function tail(child) {
  return child.stderrTail.length === 0 ? '  (no stderr output)' : child.stderrTail.map((l) => `  ${l}`).join('\n');
}

/**
 * Stops a child with SIGTERM, then SIGKILL after `timeoutMs`. Resolves with
 * how it exited.
 * @param {Child} child
 * @param {number} [timeoutMs]
 */
export async function stopChild(child, timeoutMs = STOP_TIMEOUT_MS) {
  if (child.done) return child.exited;
  signal(child, 'SIGTERM');
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const result = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    signal(child, 'SIGKILL');
    throw new Error(`${child.name} (pid ${child.pid}) did not exit within ${timeoutMs} ms of SIGTERM; killed`);
  }
  return result;
}

/** @param {Child} child @param {NodeJS.Signals} sig */
function signal(child, sig) {
  try {
    process.kill(child.pid, sig);
  } catch {
    // ESRCH: it exited between our check and the signal.
  }
}

/** Kills every live child by pid and removes every temp dir; synchronous so it can run in 'exit'. */
export function cleanupSync() {
  for (const child of children) signal(child, 'SIGKILL');
  children.clear();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', cleanupSync);
  for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(sig, () => {
      process.stderr.write(`\nbench: ${sig}, stopping children\n`);
      cleanupSync();
      process.exit(128 + (os.constants.signals[sig] ?? 0));
    });
  }
}
