// @modelcontextprotocol/server-memory's side of the search bench: spawn it
// as MCP clients do (the SDK's Client over StdioClientTransport) and load
// the same texts memoryd got (one entity per fact); the caller times
// search_nodes with the same query strings, one in flight
// (search/compare.mjs).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** server-memory's entry point, as its package's bin runs it. */
export const SERVER_MEMORY_BIN = path.resolve(here, '../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js');

/** Entities per create_entities call. */
const CHUNK = 1_000;
/** Bound on connecting (spawn + initialize), ms. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Bound on one tool call, ms: it rewrites its whole JSONL file on every create. */
const CALL_TIMEOUT_MS = 300_000;

/**
 * The SDK client's cap on buffered stdout, bytes. Its default (10 MiB)
 * ends the connection when one answer is larger, and search_nodes answers
 * with every match, twice (text and structuredContent): at 100,000 facts a
 * query for a word in 40% of them is ~30 MB. Raised, so the bench measures
 * the server rather than the client's cap.
 */
const MAX_BUFFER_BYTES = 512 * 1024 * 1024;

/** How much of server-memory's stderr is kept to explain a failure. */
const STDERR_TAIL_CHARS = 2_000;

/** Pids of servers not yet known to have exited; killed on process exit. */
const livePids = new Set();
let hookInstalled = false;

function killLiveSync() {
  for (const pid of livePids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
  livePids.clear();
}

/**
 * A server-memory spawned and loaded with `facts`: `search` calls
 * search_nodes once and returns how many entities matched; `close` stops
 * it (always call it). The load may stop at its time budget: `skipped`
 * then says why, and no search may be timed on the partial graph.
 * @typedef {{loadMs: number, loaded: number, skipped?: string, search: (text: string) => Promise<number>,
 *   close: () => Promise<void>}} ServerMemorySession
 */

/**
 * Spawns server-memory as MCP clients do and loads `facts` into it.
 * @param {{id: string, content: string}[]} facts
 * @param {{memoryFile: string, loadBudgetMs: number, progress: (line: string) => void}} options
 * @returns {Promise<ServerMemorySession>}
 */
export async function startServerMemory(facts, options) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_MEMORY_BIN],
    env: { MEMORY_FILE_PATH: options.memoryFile },
    stderr: 'pipe',
    maxBufferSize: MAX_BUFFER_BYTES,
  });
  // Keep the tail of its stderr (a startup banner, or why it died); reading
  // it also means a full pipe can never block the server.
  let stderrTail = '';
  transport.stderr?.setEncoding?.('utf8');
  transport.stderr?.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const client = new Client({ name: 'memoryd-bench-search', version: '0.1.0' });
  if (!hookInstalled) {
    hookInstalled = true;
    process.on('exit', killLiveSync);
  }
  const connecting = client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  // The transport spawns synchronously in start(): record the pid before
  // anything can fail, so the exit hook can always kill it.
  const pid = transport.pid;
  if (pid !== null) livePids.add(pid);
  const close = async () => {
    // close(): stdin EOF, then SIGTERM and SIGKILL after 2 s each (the SDK's own escalation).
    await client.close().catch(() => {});
    if (pid !== null) {
      try {
        process.kill(pid, 0);
        process.kill(pid, 'SIGKILL');
      } catch {
        // Exited, as it should on EOF.
      }
      livePids.delete(pid);
    }
  };
  /** Its error, with the tail of its stderr to explain it. */
  const explained = (err) => {
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`${message}; server-memory stderr:\n${stderrTail.trim() || '(empty)'}`, { cause: err });
  };
  const call = async (name, args) => {
    let result;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    } catch (err) {
      throw explained(err);
    }
    if (result.isError) throw explained(new Error(`server-memory ${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`));
    return /** @type {any} */ (result.structuredContent);
  };
  const search = async (text) => {
    const graph = await call('search_nodes', { query: text });
    if (!Array.isArray(graph?.entities)) throw explained(new Error('server-memory search_nodes answered without entities'));
    return graph.entities.length;
  };
  try {
    await connecting.catch((err) => {
      throw explained(err);
    });
    const loadStart = performance.now();
    let loaded = 0;
    for (let i = 0; i < facts.length; i += CHUNK) {
      const chunk = facts.slice(i, i + CHUNK);
      const created = await call('create_entities', {
        entities: chunk.map((f) => ({ name: f.id, entityType: 'fact', observations: [f.content] })),
      });
      if (created?.entities?.length !== chunk.length) {
        throw new Error(`server-memory created ${created?.entities?.length} of ${chunk.length} entities`);
      }
      loaded += chunk.length;
      const elapsed = performance.now() - loadStart;
      if (loaded < facts.length && elapsed > options.loadBudgetMs) {
        const skipped = `load stopped at ${loaded.toLocaleString('en-US')} of ${facts.length.toLocaleString('en-US')} entities after ` +
          `${(elapsed / 1000).toFixed(0)} s, over the ${(options.loadBudgetMs / 1000).toFixed(0)} s budget`;
        return { loadMs: elapsed, loaded, skipped, search, close };
      }
      if (loaded % 10_000 === 0 || loaded === facts.length) {
        options.progress(`server-memory: loaded ${loaded.toLocaleString('en-US')}/${facts.length.toLocaleString('en-US')} entities ` +
          `(${Math.round(loaded / (elapsed / 1000)).toLocaleString('en-US')}/s)`);
      }
    }
    return { loadMs: performance.now() - loadStart, loaded, search, close };
  } catch (err) {
    await close();
    throw err;
  }
}
