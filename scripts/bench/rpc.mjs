// `npm run bench`: memory.add and checkpoint.save throughput and latency
// against real daemons (sync and --no-sync, 1 and 16 connections), next to
// a raw NDJSON echo server on a Unix socket measured the same way in the
// same run (the transport's floor), with ratios to that floor and the
// targets of issue 2. Progress goes to stderr; the table (or, with --json,
// one JSON document) to stdout.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertDaemonBuilt, cleanupSync, makeTempDir, startNode, stopChild, waitForSocket } from './children.mjs';
import { runCell } from './load.mjs';
import { connect } from './ndjson-client.mjs';
import { formatTable } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ECHO_SERVER = path.join(here, 'echo-server.mjs');
const DAEMON_BIN = path.resolve(here, '../../packages/daemon/bin/memoryd.js');
const CONNECTION_COUNTS = [1, 16];

const HELP = `usage: node scripts/bench/rpc.mjs [--duration MS] [--warmup MS] [--json] [--check]

Benchmarks memoryd's memory.add and checkpoint.save (and daemon.hello, the
request path without a store write) with 1 and 16 connections, each with one request in flight, on a daemon with sync writes
(the default) and one with --no-sync, next to a raw NDJSON echo server over
a Unix socket (the transport's floor). Prints per cell: ops, throughput,
p50/p99 latency, and ratios to the echo floor with the same connection
count; then issue 2's targets with PASS/FAIL.

  --duration MS  measuring window of each cell (default 2500)
  --warmup MS    warm-up before each window, not counted (default 500)
  --json         print the results as one JSON document instead of the table
  --check        exit 1 when a target fails (default: exit 0 once measured)
  --help         this text

Needs a built daemon (npm run bench builds first). Daemons and the echo
server run on temp sockets and data dirs under ${os.tmpdir()}, all removed
on exit.`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { durationMs: 2500, warmupMs: 500, json: false, check: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--check') opts.check = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--duration' || arg === '--warmup') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < (arg === '--duration' ? 100 : 0) || value > 60_000) {
        throw usage(`${arg} needs an integer number of ms (${arg === '--duration' ? 100 : 0}–60000)`);
      }
      opts[arg === '--duration' ? 'durationMs' : 'warmupMs'] = value;
    } else throw usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  return opts;
}

/** @param {string} message */
function usage(message) {
  return Object.assign(new Error(`${message}\n(see --help)`), { exitCode: 2 });
}

/** @param {string} message */
function progress(message) {
  process.stderr.write(`bench: ${message}\n`);
}

/** A run-unique tag, so content is never a duplicate of an earlier run's either. */
const RUN_TAG = `${process.pid}-${Date.now().toString(36)}`;

/**
 * The request generators of the two methods. Every add's content is unique
 * (cell label, connection and sequence number), so none is a duplicate; each
 * connection is its own agent, `bench-<conn>`.
 */
const WORKLOADS = {
  'memory.add': {
    call: (label) => (conn, seq) => ({
      method: 'memory.add',
      params: {
        agentId: `bench-${conn}`,
        content: `fact ${RUN_TAG} ${label} c${conn} n${seq}: the user prefers concise answers with code examples and a dark theme`,
      },
    }),
    check: (r) => (typeof r?.factId !== 'string' ? 'no factId' : r.duplicate === true ? 'unexpected duplicate' : undefined),
  },
  // The request path alone (framing, JSON-RPC dispatch, validation, the
  // answer) with no store write: what "request latency" costs over the floor.
  'daemon.hello': {
    call: () => (conn) => ({ method: 'daemon.hello', params: { client: `bench-${conn}` } }),
    check: (r) => (r?.protocolVersion !== 1 ? 'no protocolVersion 1' : undefined),
  },
  'checkpoint.save': {
    call: () => (conn, seq) => ({
      method: 'checkpoint.save',
      params: {
        agentId: `bench-${conn}`,
        messageCount: seq,
        // About 200 bytes of JSON, like a small session state.
        state: {
          task: 'refactor the storage layer',
          step: seq,
          openFiles: ['src/store/level/level-store.ts', 'src/server/rpc-server.ts'],
          notes: 'batch writes atomically; keep the key layout escape-proof',
          flags: { verbose: false, dryRun: true },
        },
      },
    }),
    check: (r) => (typeof r?.checkpointId !== 'string' ? 'no checkpointId' : undefined),
  },
};

/**
 * @param {object} opts
 * @param {string} socketPath
 * @param {string} label
 * @param {keyof typeof WORKLOADS} method
 * @param {number} connections
 */
async function measure(opts, socketPath, label, method, connections) {
  const workload = WORKLOADS[method];
  progress(`${label}, ${connections} connection(s)…`);
  const figures = await runCell({
    socketPath,
    connections,
    warmupMs: opts.warmupMs,
    durationMs: opts.durationMs,
    call: workload.call(`${label}/${connections}`),
    check: workload.check,
  });
  if (figures.ops === 0) throw new Error(`${label} with ${connections} connection(s) completed no request in the window`);
  return figures;
}

/** @param {object} opts @param {string} root */
async function runEcho(opts, root) {
  const socketPath = path.join(root, 'echo.sock');
  const child = startNode('echo server', [ECHO_SERVER, socketPath]);
  await waitForSocket(child, socketPath);
  const cells = [];
  for (const connections of CONNECTION_COUNTS) {
    // The floor speaks the same request as memory.add so the bytes match.
    const figures = await measure(opts, socketPath, 'echo', 'memory.add', connections);
    cells.push({ name: 'echo (floor)', kind: 'echo', method: null, sync: null, connections, ...figures });
  }
  await stopChild(child);
  return cells;
}

/** @param {object} opts @param {string} root @param {boolean} sync */
async function runDaemon(opts, root, sync) {
  const mode = sync ? 'sync' : 'no-sync';
  const socketPath = path.join(root, `${mode}.sock`);
  const dataDir = path.join(root, `${mode}-data`);
  const args = [DAEMON_BIN, '--socket', socketPath, '--data-dir', dataDir, '--log-level', 'warn'];
  if (!sync) args.push('--no-sync');
  progress(`starting memoryd (${mode})`);
  const child = startNode(`memoryd (${mode})`, args);
  await waitForSocket(child, socketPath);
  const client = await connect(socketPath);
  const hello = await client.request('daemon.hello', { client: 'memoryd-bench' });
  await client.close();
  const cells = [];
  const methods = /** @type {(keyof typeof WORKLOADS)[]} */ (
    sync ? ['memory.add', 'checkpoint.save'] : ['daemon.hello', 'memory.add', 'checkpoint.save']
  );
  for (const method of methods) {
    for (const connections of CONNECTION_COUNTS) {
      const figures = await measure(opts, socketPath, `${method} ${mode}`, method, connections);
      const name = method === 'daemon.hello' ? method : `${method} ${mode}`;
      cells.push({ name, kind: 'daemon', method, sync, connections, ...figures });
    }
  }
  const exit = await stopChild(child);
  if (exit.code !== 0) progress(`warning: memoryd (${mode}) exited with ${exit.code ?? exit.signal} on SIGTERM`);
  return { hello, cells };
}

/** Adds each cell's ratios to the echo floor with the same connection count. */
function addRatios(cells) {
  for (const cell of cells) {
    const floor = cells.find((c) => c.kind === 'echo' && c.connections === cell.connections);
    cell.throughputRatio = cell.throughput / floor.throughput;
    cell.p50Ratio = cell.p50Ms / floor.p50Ms;
  }
}

/** Issue 2's targets, judged on the measured cells. */
function judge(cells) {
  const find = (method, sync, connections) =>
    cells.find((c) => c.method === method && c.sync === sync && c.connections === connections);
  const addSync1 = find('memory.add', true, 1);
  const addNoSync16 = find('memory.add', false, 16);
  const addNoSync1 = find('memory.add', false, 1);
  const hello1 = find('daemon.hello', false, 1);
  return [
    { target: 'memory.add p50 with sync, 1 connection', value: addSync1.p50Ms, unit: 'ms', op: '<=', limit: 1 },
    { target: 'memory.add throughput with --no-sync, 16 connections', value: addNoSync16.throughput, unit: 'ops/s', op: '>=', limit: 10_000 },
    { target: 'sequential request latency: daemon.hello p50 (1 connection) / echo p50', value: hello1.p50Ratio, unit: 'x', op: '<=', limit: 3 },
    // Not a target of its own: the same ratio for a request that also
    // waits for a LevelDB batch, to show what the store adds to the path.
    { target: 'sequential memory.add p50 (--no-sync, 1 connection) / echo p50', value: addNoSync1.p50Ratio, unit: 'x', op: '<=', limit: 3, info: true },
  ].map((t) => ({ ...t, pass: t.op === '<=' ? t.value <= t.limit : t.value >= t.limit }));
}

/** @param {any[]} cells @param {any[]} targets */
function printTable(cells, targets, meta) {
  const rows = cells.map((c) => [
    c.name, c.connections, c.ops, Math.round(c.throughput), c.p50Ms.toFixed(3), c.p99Ms.toFixed(3),
    c.throughputRatio.toFixed(2), c.p50Ratio.toFixed(2),
  ]);
  const header = ['cell', 'conns', 'ops', 'ops/s', 'p50 ms', 'p99 ms', 'ops/s ÷ echo', 'p50 ÷ echo'];
  const out = [
    `memoryd ${meta.daemonVersion} (protocol ${meta.protocolVersion}), node ${process.version}, ${os.cpus().length} CPU(s), ` +
      `${meta.durationMs} ms per cell after ${meta.warmupMs} ms warm-up, one request in flight per connection`,
    '',
    formatTable(header, rows),
    '',
    'targets (issue 2):',
    ...targets.map((t) => {
      const value = t.unit === 'ops/s' ? Math.round(t.value) : t.value.toFixed(3);
      if (t.info) return `  info  ${t.target}: ${value} ${t.unit} (for comparison: the request path plus one LevelDB batch)`;
      return `  ${t.pass ? 'PASS' : 'FAIL'}  ${t.target}: ${value} ${t.unit} (target ${t.op} ${t.limit.toLocaleString('en-US')} ${t.unit})`;
    }),
  ];
  process.stdout.write(out.join('\n') + '\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  assertDaemonBuilt();
  const root = makeTempDir('memoryd-bench-');
  const startedAt = new Date().toISOString();
  const cells = await runEcho(opts, root);
  const sync = await runDaemon(opts, root, true);
  const noSync = await runDaemon(opts, root, false);
  cells.push(...sync.cells, ...noSync.cells);
  addRatios(cells);
  const targets = judge(cells);
  const meta = {
    startedAt,
    daemonVersion: sync.hello?.daemonVersion,
    protocolVersion: sync.hello?.protocolVersion,
    durationMs: opts.durationMs,
    warmupMs: opts.warmupMs,
  };
  if (opts.json) {
    const doc = { ...meta, node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, cells, targets };
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  } else {
    printTable(cells, targets, meta);
  }
  return opts.check && targets.some((t) => !t.pass && !t.info) ? 1 : 0;
}

main().then(
  (code) => {
    cleanupSync();
    // Exit explicitly: a handle someone leaked must not keep the run alive.
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench: ${err?.message ?? err}\n`);
    cleanupSync();
    process.exit(err?.exitCode ?? 1);
  },
);
