// @modelcontextprotocol/server-memory's side of the search bench: spawn it
// as MCP clients do (the SDK's Client over StdioClientTransport), load the
// same texts memoryd got (one entity per fact), and time search_nodes with
// the same query strings, one in flight.

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
 * Runs server-memory on `facts`: load, then time `queries`. Either part may
 * stop at its time budget: the load is then reported as skipped with the
 * reason (no search is timed on a partial graph), the searches as measured
 * on the first queries only.
 * @param {{id: string, content: string}[]} facts
 * @param {{text: string}[]} queries
 * @param {{memoryFile: string, warmup: {text: string}[], loadBudgetMs: number, searchBudgetMs: number,
 *   progress: (line: string) => void}} options
 * @returns {Promise<{loadMs: number, loaded: number, skipped?: string, samplesNs: number[],
 *   answeredWithEntities: number, maxEntities: number, searchCutShort: boolean}>}
 */
export async function runServerMemory(facts, queries, options) {
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
  try {
    await connecting;
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
      if (result.isError) throw new Error(`server-memory ${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
      return /** @type {any} */ (result.structuredContent);
    };

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
        const reason = `load stopped at ${loaded.toLocaleString('en-US')} of ${facts.length.toLocaleString('en-US')} entities after ` +
          `${(elapsed / 1000).toFixed(0)} s, over the ${(options.loadBudgetMs / 1000).toFixed(0)} s budget`;
        return { loadMs: elapsed, loaded, skipped: reason, samplesNs: [], answeredWithEntities: 0, maxEntities: 0, searchCutShort: false };
      }
      if (loaded % 10_000 === 0 || loaded === facts.length) {
        options.progress(`server-memory: loaded ${loaded.toLocaleString('en-US')}/${facts.length.toLocaleString('en-US')} entities ` +
          `(${Math.round(loaded / (elapsed / 1000)).toLocaleString('en-US')}/s)`);
      }
    }
    const loadMs = performance.now() - loadStart;

    const search = (query) => call('search_nodes', { query });
    for (const query of options.warmup) await search(query.text);
    const samplesNs = [];
    let answeredWithEntities = 0;
    let maxEntities = 0;
    const searchStart = performance.now();
    let searchCutShort = false;
    for (const query of queries) {
      if (performance.now() - searchStart > options.searchBudgetMs) {
        searchCutShort = true;
        break;
      }
      const t0 = process.hrtime.bigint();
      const graph = await search(query.text);
      samplesNs.push(Number(process.hrtime.bigint() - t0));
      if (!Array.isArray(graph?.entities)) throw new Error('server-memory search_nodes answered without entities');
      if (graph.entities.length > 0) answeredWithEntities++;
      maxEntities = Math.max(maxEntities, graph.entities.length);
    }
    return { loadMs, loaded, samplesNs, answeredWithEntities, maxEntities, searchCutShort };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${message}; server-memory stderr:\n${stderrTail.trim() || '(empty)'}`, { cause: err });
  } finally {
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
  }
}
