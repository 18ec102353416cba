// The servers bench:search measures, each behind its own Unix socket and
// speaking memoryd's NDJSON JSON-RPC: memoryd builds (this checkout, or
// another one's, e.g. a worktree of a base commit; with flags, variables
// and Node options of their own, for A/B runs of one mechanism), the peer
// (an SQLite FTS5 index, fts5-server.mjs) and the transport's floor (an
// echo server answering a fixed search result, ../echo-server.mjs). Each
// can be started on a data dir, seeded through admin.import, stopped and
// started again, and its RSS read.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startNode, stopChild, waitForSocket } from '../children.mjs';
import { connect } from '../ndjson-client.mjs';
import { freshSchema } from '../pg-schema.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** This checkout. */
export const THIS_CHECKOUT = path.resolve(here, '../../..');
const FTS5_SERVER = path.join(here, 'fts5-server.mjs');
const ECHO_SERVER = path.resolve(here, '../echo-server.mjs');
const TIMER = path.join(here, 'search-timer.mjs');

/** Bound on one admin.import call of 1,000 records, ms: generous, a slow batch is a figure, not a failure. */
const IMPORT_TIMEOUT_MS = 300_000;
/** Bound on a server's start to its first accepted connection, ms: a daemon may rebuild an index at open. */
const START_TIMEOUT_MS = 120_000;
/** Bound on the wait for meaning search to embed a scale's facts. */
const EMBED_TIMEOUT_MS = 1_800_000;
/** Bound on a server's exit after daemon.shutdown, ms (docs/operations.md "Stopping": within 5 s). */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Bound on a timing job beyond its calls' own timeouts, ms. */
const TIMER_SLACK_MS = 60_000;
/** Bound on one search in the timer (search-timer.mjs), ms. */
const SEARCH_TIMEOUT_MS = 120_000;

/**
 * A memoryd to measure.
 * @typedef {{label: string, checkout?: string, args?: string[], env?: Record<string, string>,
 *   nodeOptions?: string[], launch?: 'own' | 'plain', clientBusyPollUs?: number, postgres?: boolean}} MemorydSpec
 *   `checkout`: a built checkout (default this one); `launch` 'own' (default) starts it as that
 *   checkout's launchers do (its @memoryd/client's MEMORYD_NODE_OPTIONS and memorydEnv, where it
 *   has them), 'plain' as `node bin/memoryd.js`; `nodeOptions` and `env` come after those;
 *   `clientBusyPollUs` is set on the timing client's DaemonClient; `postgres` runs it on
 *   --store postgres in a fresh schema of the server the PG* variables name.
 */

/**
 * A server under measurement.
 * @typedef {{label: string, kind: 'memoryd' | 'fts5' | 'echo', checkout: string, seeded: boolean, clientBusyPollUs?: number,
 *   socketPath: string, start: () => Promise<void>, stop: () => Promise<void>, pid: () => number | undefined,
 *   seed: (batches: Iterator<object[]>, total: number, inFlight: number, progress: (line: string) => void) => Promise<{imported: number, ms: number}>,
 *   close: () => Promise<void>}} Server
 */

/** Memoryd's launch of a checkout: node options and environment, as its launchers set them. @param {MemorydSpec} spec */
async function launchOf(spec) {
  const checkout = spec.checkout ?? THIS_CHECKOUT;
  let nodeOptions = [];
  let env = { ...process.env };
  if ((spec.launch ?? 'own') === 'own') {
    const client = await import(pathToFileURL(path.join(checkout, 'packages/client/dist/index.js')).href);
    if (Array.isArray(client.MEMORYD_NODE_OPTIONS)) nodeOptions = [...client.MEMORYD_NODE_OPTIONS];
    if (typeof client.memorydEnv === 'function') env = client.memorydEnv(env);
  }
  return { nodeOptions: [...nodeOptions, ...(spec.nodeOptions ?? [])], env: { ...env, ...(spec.env ?? {}) } };
}

/**
 * A server that a socket and a data dir of its own under `dir`, and a
 * command, make: started, stopped by daemon.shutdown (SIGTERM, then
 * SIGKILL, if it does not go), started again on the same data.
 * @param {{label: string, kind: Server['kind'], checkout: string, seeded: boolean, clientBusyPollUs?: number, dir: string,
 *   command: (socketPath: string, dataDir: string) => {args: string[], env: NodeJS.ProcessEnv}, onClose?: () => Promise<void>}} o
 * @returns {Server}
 */
function server(o) {
  fs.mkdirSync(o.dir, { recursive: true });
  const socketPath = path.join(o.dir, 's.sock');
  const dataDir = path.join(o.dir, 'data');
  /** @type {import('../children.mjs').Child | undefined} */
  let child;
  const stop = async () => {
    if (child === undefined || child.done) return;
    const running = child;
    child = undefined;
    const client = await connect(socketPath).catch(() => undefined);
    await client?.request('daemon.shutdown', {}).catch(() => {});
    await client?.close();
    let timer;
    const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), SHUTDOWN_TIMEOUT_MS)));
    const exit = await Promise.race([running.exited, timedOut]);
    clearTimeout(timer);
    if (exit === 'timeout') await stopChild(running);
  };
  return {
    label: o.label, kind: o.kind, checkout: o.checkout, seeded: o.seeded, clientBusyPollUs: o.clientBusyPollUs, socketPath,
    embeddings: o.embeddings === true,
    /** Waits until daemon.status says every fact has its vector. @param {(line: string) => void} progress */
    async waitEmbedded(progress) {
      const client = await connect(socketPath);
      const started = Date.now();
      let said = 0;
      try {
        for (;;) {
          const { embeddings } = await client.request('daemon.status', {});
          if (embeddings === undefined) throw new Error(`${o.label} has no embedder`);
          if (embeddings.pending === 0 && embeddings.dimensions > 0) break;
          if (Date.now() - said > 5_000) {
            progress(`${o.label}: ${embeddings.pending.toLocaleString('en-US')} facts to embed${embeddings.lastError ? ` (${embeddings.lastError})` : ''}`);
            said = Date.now();
          }
          if (Date.now() - started > EMBED_TIMEOUT_MS) throw new Error(`${o.label}: facts not embedded after ${EMBED_TIMEOUT_MS / 1000} s: ${JSON.stringify(embeddings)}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        progress(`${o.label}: every fact embedded, ${((Date.now() - started) / 1000).toFixed(1)} s after seeding`);
      } finally {
        await client.close();
      }
    },
    async start() {
      if (child !== undefined && !child.done) throw new Error(`${o.label} is running already`);
      const { args, env } = o.command(socketPath, dataDir);
      child = startNode(o.label, args, env);
      await waitForSocket(child, socketPath, START_TIMEOUT_MS);
    },
    stop,
    pid: () => (child === undefined || child.done ? undefined : child.pid),
    async seed(batches, total, inFlight, progress) {
      const client = await connect(socketPath, { requestTimeoutMs: IMPORT_TIMEOUT_MS });
      try {
        return await importAll(client, batches, { total, inFlight, progress: (line) => progress(`${o.label}: ${line}`) });
      } finally {
        await client.close();
      }
    },
    async close() {
      await stop();
      await o.onClose?.();
    },
  };
}

/**
 * The servers of a run, in `root`: every memoryd of `specs`, then the
 * FTS5 peer and the echo floor unless left out.
 * @param {MemorydSpec[]} specs
 * @param {{fts5: boolean, echo: boolean, protocolVersion: number}} opts
 * @param {string} root
 * @returns {Promise<Server[]>}
 */
export async function makeServers(specs, opts, root) {
  /** @type {Server[]} */
  const servers = [];
  for (const [i, spec] of specs.entries()) {
    const checkout = path.resolve(spec.checkout ?? THIS_CHECKOUT);
    const bin = path.join(checkout, 'packages/daemon/bin/memoryd.js');
    if (!fs.existsSync(path.join(checkout, 'packages/daemon/dist/bin/main.js'))) throw new Error(`${spec.label}: ${checkout} is not built (npm ci there first)`);
    const { nodeOptions, env } = await launchOf({ ...spec, checkout });
    const schema = spec.postgres ? await freshSchema('memoryd_bench') : undefined;
    const pgArgs = schema === undefined ? [] : ['--store', 'postgres'];
    const pgEnv = schema === undefined ? {} : { PGOPTIONS: `-c search_path=${schema.schema}` };
    servers.push(server({
      label: spec.label, kind: 'memoryd', checkout, seeded: true, clientBusyPollUs: spec.clientBusyPollUs, dir: path.join(root, `m${i}`),
      embeddings: spec.embeddings === true,
      command: (socketPath, dataDir) => ({
        args: [...nodeOptions, bin, '--socket', socketPath, '--data-dir', dataDir, '--log-level', 'warn', ...pgArgs, ...(spec.args ?? [])],
        env: { ...env, ...pgEnv },
      }),
      onClose: schema?.drop,
    }));
  }
  const protocol = String(opts.protocolVersion);
  if (opts.fts5) {
    servers.push(server({
      label: 'fts5', kind: 'fts5', checkout: THIS_CHECKOUT, seeded: true, dir: path.join(root, 'fts5'),
      command: (socketPath, dataDir) => {
        fs.mkdirSync(dataDir, { recursive: true });
        return { args: [FTS5_SERVER, socketPath, path.join(dataDir, 'facts.db'), protocol], env: process.env };
      },
    }));
  }
  if (opts.echo) {
    servers.push(server({
      label: 'echo', kind: 'echo', checkout: THIS_CHECKOUT, seeded: false, dir: path.join(root, 'echo'),
      command: (socketPath) => ({ args: [ECHO_SERVER, socketPath, protocol], env: process.env }),
    }));
  }
  return servers;
}

/**
 * Imports every batch through one connection with `inFlight` calls
 * outstanding, and reports progress every 5 s. Fails on any rejected or
 * skipped record: the data dir is fresh, so either means the bench and the
 * server disagree, and the figures would be wrong.
 * @param {import('../ndjson-client.mjs').NdjsonClient} client
 * @param {Iterator<object[]>} batches
 * @param {{total: number, inFlight: number, progress: (line: string) => void}} options
 * @returns {Promise<{imported: number, ms: number}>}
 */
export async function importAll(client, batches, { total, inFlight, progress }) {
  const startedAt = performance.now();
  let imported = 0;
  let reportedAt = startedAt;
  const worker = async () => {
    for (let next = batches.next(); next.done !== true; next = batches.next()) {
      const records = next.value;
      const result = await client.request('admin.import', { records });
      if (result.rejected.length > 0 || result.skipped !== 0 || result.imported !== records.length) {
        const first = result.rejected[0];
        throw new Error(
          `admin.import took ${result.imported} of ${records.length} records (skipped ${result.skipped}, ` +
            `rejected ${result.rejected.length}${first ? `, e.g. #${first.index}: ${first.reason}` : ''})`,
        );
      }
      imported += records.length;
      const now = performance.now();
      if (now - reportedAt >= 5_000) {
        reportedAt = now;
        const rate = Math.round(imported / ((now - startedAt) / 1000));
        progress(`loaded ${imported.toLocaleString('en-US')}/${total.toLocaleString('en-US')} facts (${rate.toLocaleString('en-US')} facts/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { imported, ms: performance.now() - startedAt };
}

/**
 * The resident set size of process `pid`, in bytes (VmRSS of
 * /proc/PID/status, Linux). NaN where /proc is missing or it has gone.
 * @param {number | undefined} pid
 */
export function rssBytes(pid) {
  if (pid === undefined) return NaN;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? NaN : Number(kb) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * The timing process (search-timer.mjs): `time` sends every query to
 * every subject, interleaved, one request in flight, through a
 * DaemonClient of the subject's own checkout. One process for a scale's
 * runs, across the servers' restarts, as a shim outlives a daemon
 * restart; `close` ends it.
 */
export function startSearchTimer() {
  const child = startNode('search timer', [TIMER], process.env, { ipc: true });
  /** @type {{resolve: (value: any) => void, reject: (err: Error) => void} | undefined} */
  let waiting;
  child.proc.on('message', (/** @type {{result?: any, error?: string}} */ message) => {
    const w = waiting;
    waiting = undefined;
    if (message.error !== undefined) w?.reject(new Error(`the search timer failed: ${message.error}`));
    else w?.resolve(message.result);
  });
  void child.exited.then(({ code, signal }) => {
    waiting?.reject(new Error(`the search timer exited (${signal ?? `code ${code}`}): ${child.stderrTail.join('\n')}`));
    waiting = undefined;
  });
  return {
    /**
     * @param {Server[]} servers
     * @param {string} agentId
     * @param {string[]} queries
     * @param {number} limit
     * @param {Array<Record<string, unknown> | undefined>} [filters] memory.search's filter params by server, when
     *   a server is timed under a filter (the same server may then come several times)
     * @returns {Promise<{samplesNs: number[][], withFacts: number[]}>} by server, in the order of `servers`
     */
    async time(servers, agentId, queries, limit, filters = undefined) {
      if (waiting !== undefined) throw new Error('the search timer runs one job at a time');
      if (child.done) throw new Error('the search timer has exited');
      const subjects = servers.map((s, i) => ({ label: s.label, socketPath: s.socketPath, checkout: s.checkout, busyPollUs: s.clientBusyPollUs, filter: filters?.[i] }));
      const boundMs = TIMER_SLACK_MS + queries.length * servers.length * SEARCH_TIMEOUT_MS;
      let timer;
      try {
        return await new Promise((resolve, reject) => {
          waiting = { resolve, reject };
          timer = setTimeout(() => {
            waiting = undefined;
            reject(new Error(`the search timer did not answer within ${boundMs} ms`));
          }, boundMs);
          child.proc.send({ subjects, agentId, queries, limit });
        });
      } finally {
        clearTimeout(timer);
      }
    },
    /** Ends the timing process (bounded; killed if it does not exit). */
    async close() {
      if (child.done) return;
      child.proc.disconnect();
      await stopChild(child);
    },
  };
}
