// memoryd's side of the search bench: start a daemon on a data dir, load a
// scale through admin.import, read its RSS and store size, time searches
// one at a time, and time a cold start to the first answered search.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonClient, MEMORYD_NODE_OPTIONS, memorydEnv } from '@memoryd/client';
import { startNode, stopChild, waitForSocket } from '../children.mjs';
import { connect } from '../ndjson-client.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The committed entry point, as users start the daemon. */
export const DAEMON_BIN = path.resolve(here, '../../../packages/daemon/bin/memoryd.js');

/** Bound on one admin.import call of 1,000 records, ms: generous, a slow batch is a figure, not a failure. */
const IMPORT_TIMEOUT_MS = 120_000;
/** What the bench's clients call themselves (daemon.hello's `client`). */
export const BENCH_CLIENT_NAME = 'memoryd-bench-search';
/** Bound on one search, ms: a daemon that scans 100,000 facts takes about a second. */
const SEARCH_TIMEOUT_MS = 60_000;
/** The timing client (startSearchTimer). */
const TIMER = path.join(here, 'search-timer.mjs');
/** Bound on a timing job beyond its calls' own timeouts (the timing client's start, its messages), ms. */
const TIMER_SLACK_MS = 30_000;
/** Bound on a daemon's exit after daemon.shutdown, ms (DESIGN.md: within 5 s). */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Bound on a cold start to its first answer, ms: far above the 500 ms target, so a slow start is measured, not cut. */
const COLD_START_TIMEOUT_MS = 60_000;
/** How often the cold-start probe retries connecting, ms. */
const POLL_MS = 2;

/** The compiled code a daemon runs: its own package's and the protocol's. */
const BUILD_DIRS = [
  path.resolve(here, '../../../packages/daemon/dist'),
  path.resolve(here, '../../../packages/protocol/dist'),
];

/**
 * A fingerprint of the daemon's build: the newest mtime and the count of
 * the compiled files. A rebuild between a load and a cold start would
 * time a different daemon (one that may even rebuild its index at open),
 * so the bench compares this before every spawn.
 */
export function buildFingerprint() {
  let newest = 0;
  let files = 0;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        files++;
        newest = Math.max(newest, fs.statSync(full).mtimeMs);
      }
    }
  };
  for (const dir of BUILD_DIRS) walk(dir);
  return `${files} files, newest ${new Date(newest).toISOString()}`;
}

/**
 * Throws when the daemon's build is not the one the run started with.
 * @param {string} expected the fingerprint taken at the start
 * @param {string} when what was about to happen, for the message
 */
export function assertSameBuild(expected, when) {
  const now = buildFingerprint();
  if (now !== expected) {
    throw new Error(`the daemon was rebuilt during the run (${expected} -> ${now}); stopped before ${when}, since the figures would mix two builds`);
  }
}

/**
 * Starts memoryd on `socketPath` and `dataDir` (sync writes, the default)
 * and waits until it accepts connections.
 * @param {string} socketPath
 * @param {string} dataDir
 * @param {string} label for messages
 * @param {{args?: string[], env?: Record<string, string>}} [extra] more flags, and variables over the environment
 */
export async function startDaemon(socketPath, dataDir, label, extra = {}) {
  const child = spawnDaemon(socketPath, dataDir, `memoryd (${label})`, extra);
  await waitForSocket(child, socketPath, 60_000);
  return child;
}

/**
 * Spawns memoryd as its launchers do (MEMORYD_NODE_OPTIONS, memorydEnv).
 * @param {string} socketPath @param {string} dataDir @param {string} name for messages
 * @param {{args?: string[], env?: Record<string, string>}} [extra] more flags, and variables over the environment
 */
function spawnDaemon(socketPath, dataDir, name, extra = {}) {
  const args = [...MEMORYD_NODE_OPTIONS, DAEMON_BIN, '--socket', socketPath, '--data-dir', dataDir, '--log-level', 'info', ...(extra.args ?? [])];
  return startNode(name, args, { ...memorydEnv(process.env), ...(extra.env ?? {}) });
}

/**
 * The resident set size of process `pid`, in bytes (VmRSS of
 * /proc/PID/status, Linux). NaN where /proc is missing.
 * @param {number} pid
 */
export function rssBytes(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kb === undefined ? NaN : Number(kb) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * What a process's RSS is made of (Linux): anonymous memory (its heaps),
 * file pages it maps, and of those the LevelDB table files (LevelDB reads
 * tables through mmap, so pages it touched count until it closes the file).
 * NaN where /proc is missing.
 * @param {number} pid
 * @returns {{anonBytes: number, fileBytes: number, tableBytes: number}}
 */
export function rssBreakdown(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    let tableKb = 0;
    let inTable = false;
    for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inTable = line.endsWith('.ldb');
      else if (inTable && line.startsWith('Rss:')) tableKb += Number(line.split(/\s+/)[1]);
    }
    return { anonBytes: field('RssAnon'), fileBytes: field('RssFile'), tableBytes: tableKb * 1024 };
  } catch {
    return { anonBytes: NaN, fileBytes: NaN, tableBytes: NaN };
  }
}

/**
 * The bytes of every file under `dir`, like `du --apparent-size -s`.
 * @param {string} dir
 */
export function treeBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

/**
 * Imports every batch through one connection with `inFlight` calls
 * outstanding, and reports progress every 2 s. Fails on any rejected or
 * skipped record: the data dir is fresh, so either means the bench and the
 * daemon disagree, and the figures would be wrong.
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
      const result = await client.request('admin.import', { records }, { timeoutMs: IMPORT_TIMEOUT_MS });
      if (result.rejected.length > 0 || result.skipped !== 0 || result.imported !== records.length) {
        const first = result.rejected[0];
        throw new Error(
          `admin.import took ${result.imported} of ${records.length} records (skipped ${result.skipped}, ` +
            `rejected ${result.rejected.length}${first ? `, e.g. #${first.index}: ${first.reason}` : ''})`,
        );
      }
      imported += records.length;
      const now = performance.now();
      if (now - reportedAt >= 2_000) {
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
 * The client the bench searches through: @memoryd/client's DaemonClient,
 * as memoryd-mcp uses it, without autostart.
 * @param {string} socketPath
 * @param {number | undefined} busyPollUs the client's (undefined: its default)
 */
export function searchClient(socketPath, busyPollUs) {
  return new DaemonClient({
    socket: socketPath, autostart: false, requestTimeoutMs: SEARCH_TIMEOUT_MS, clientName: BENCH_CLIENT_NAME,
    ...(busyPollUs === undefined ? {} : { busyPollUs }),
  });
}

/**
 * Times searches for the bench: `time` sends memory.search one in flight
 * through @memoryd/client's DaemonClient, as memoryd-mcp calls the
 * daemon, on a connection of its own: the `warmup` queries untimed (none
 * by default: a user's first searches count), then every query of
 * `queries` timed, from the first; then as many daemon.hello round trips,
 * timed (the floor).
 *
 * From a process of its own (search-timer.mjs, ADR 0026), as a user's
 * memoryd-mcp is: this one holds the whole dataset it loaded (a million
 * facts at the largest scale), and its collections paused the timing loop
 * (scavenges of 3-11 ms at 100,000 facts) and took a core from the
 * daemon. One process for all of a scale's runs, across the daemon's
 * restarts, as a shim outlives a daemon restart; `close` ends it.
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
     * @param {string} socketPath
     * @param {string} agentId
     * @param {{text: string}[]} queries
     * @param {{warmup: {text: string}[], limit: number, busyPollUs?: number}} opts
     * @returns {Promise<{samplesNs: number[], floorNs: number[], answeredWithFacts: number, warmupSearches: number}>}
     */
    async time(socketPath, agentId, queries, { warmup, limit, busyPollUs }) {
      if (waiting !== undefined) throw new Error('the search timer runs one job at a time');
      if (child.done) throw new Error('the search timer has exited');
      const job = {
        socketPath, agentId, limit, busyPollUs,
        queries: queries.map((q) => q.text), warmup: warmup.map((q) => q.text),
      };
      // Every call is bounded by the client's own timeout; this bounds the rest.
      const boundMs = TIMER_SLACK_MS + (2 * queries.length + warmup.length) * SEARCH_TIMEOUT_MS;
      let timer;
      try {
        return await new Promise((resolve, reject) => {
          waiting = { resolve, reject };
          timer = setTimeout(() => {
            waiting = undefined;
            reject(new Error(`the search timer did not answer within ${boundMs} ms`));
          }, boundMs);
          child.proc.send(job);
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

/**
 * Stops a daemon with daemon.shutdown and waits (bounded) for its exit;
 * falls back to SIGTERM, then SIGKILL.
 * @param {import('../ndjson-client.mjs').NdjsonClient} client
 * @param {import('../children.mjs').Child} child
 */
export async function shutdownDaemon(client, child) {
  await client.request('daemon.shutdown', {}).catch(() => {});
  await client.close();
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), SHUTDOWN_TIMEOUT_MS);
  });
  const exit = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (exit === 'timeout') await stopChild(child);
}

/**
 * Spawns a daemon on an existing data dir and times it from spawn to the
 * first socket accept and to the first successful memory.search answer,
 * probing the socket every 2 ms. Resolves with the running child and its
 * open connection.
 * @param {string} socketPath
 * @param {string} dataDir
 * @param {{agentId: string, query: string, label: string}} probe
 */
export async function coldStart(socketPath, dataDir, { agentId, query, label }) {
  const t0 = performance.now();
  const child = spawnDaemon(socketPath, dataDir, `memoryd (${label}, cold start)`);
  const deadline = t0 + COLD_START_TIMEOUT_MS;
  let client;
  for (;;) {
    if (child.done) throw new Error(`memoryd (${label}) exited during its cold start:\n${child.stderrTail.join('\n')}`);
    if (performance.now() > deadline) {
      throw new Error(`memoryd (${label}) did not accept a connection within ${COLD_START_TIMEOUT_MS} ms; its stderr:\n${child.stderrTail.join('\n') || '(empty)'}`);
    }
    try {
      client = await connect(socketPath, { connectTimeoutMs: 1_000, requestTimeoutMs: COLD_START_TIMEOUT_MS });
      break;
    } catch {
      // ENOENT / ECONNREFUSED until the daemon listens.
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  const acceptMs = performance.now() - t0;
  const result = await client.request('memory.search', { agentId, query, limit: 10 });
  const answerMs = performance.now() - t0;
  if (!Array.isArray(result?.facts)) throw new Error('cold-start search answered without facts');
  return { child, client, acceptMs, answerMs, facts: result.facts.length };
}
