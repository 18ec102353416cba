// `npm run bench:shim`: how long an MCP client waits for memoryd-mcp, from
// spawn to `initialize` and `tools/list` answered, measured with the SDK's
// own Client + StdioClientTransport, next to @modelcontextprotocol/server-memory
// (a typical Node MCP server) and a bare `node -e 0` (the floor: starting
// Node itself), all in the same run. Spawns are interleaved round-robin, so
// the three subjects share the machine's noise. Prints medians, p90, min,
// the ratios and issue 3's targets; progress goes to stderr, the table (or,
// with --json, one JSON document) to stdout.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBenchDeps } from './bench-deps.mjs';
import { cleanupSync, makeTempDir } from './children.mjs';
import { killAllSync, timeBareNode, timeMcpServer } from './shim-spawn.mjs';
import { percentile, formatTable } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const SHIM_BIN = path.join(repo, 'packages/mcp/bin/memoryd-mcp.js');
/** The reference MCP memory server, one of the benches' own packages (bench-deps.mjs). */
const SERVER_MEMORY_BIN = path.join(repo, 'scripts/bench/node_modules/@modelcontextprotocol/server-memory/dist/index.js');

/** The tools docs/api-stability.md "MCP tools" promises of the shim. */
const SHIM_TOOLS = ['memory_search', 'memory_add', 'checkpoint_save', 'checkpoint_resume', 'memory_reflect'];

/** Issue 3's targets. */
const TARGET_SHIM_MEDIAN_MS = 150;
const TARGET_RATIO_TO_SERVER_MEMORY = 0.5;

const SUBJECT_NAMES = ['shim', 'server-memory', 'node'];

const HELP = `usage: node scripts/bench/shim.mjs [--runs N] [--warmup N] [--subjects LIST] [--json] [--check]

Measures how long an MCP client waits for a stdio server: spawn, MCP
initialize, then tools/list answered, using the SDK's Client and
StdioClientTransport. Subjects, interleaved round-robin in one run:

  shim           node packages/mcp/bin/memoryd-mcp.js --socket <tmp>/x.sock --no-autostart
                 (no daemon runs: tools/list must not need one)
  server-memory  node scripts/bench/node_modules/@modelcontextprotocol/server-memory/dist/index.js (installed on first run)
                 (MEMORY_FILE_PATH in a temp dir)
  node           node -e 0, timed from spawn to exit (the floor)

Prints per subject: median, p90, min and max in ms, and whether each MCP
server exited on stdin EOF; then the ratios shim/server-memory and
shim/node (of medians) and issue 3's targets with PASS/FAIL: shim median
<= ${TARGET_SHIM_MEDIAN_MS} ms, and <= ${TARGET_RATIO_TO_SERVER_MEMORY}x server-memory's median.

  --runs N         timed spawns per subject, 10-1000 (default 15)
  --warmup N       untimed spawns per subject first, 0-100 (default 1)
  --subjects LIST  comma-separated subset of ${SUBJECT_NAMES.join(',')} (default: all);
                   a target whose subjects were not run is reported n/a
  --json           print the results as one JSON document instead of the table
  --check          exit 1 when a target fails or is n/a (default: exit 0 once measured)
  --help           this text

Needs a built shim (npm run build). Temp dirs under ${os.tmpdir()} and every
child process are removed or killed on exit, also on error or Ctrl-C.`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { runs: 15, warmup: 1, subjects: [...SUBJECT_NAMES], json: false, check: false, help: false };
  const integer = (flag, raw, min, max) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) throw usage(`${flag} needs an integer from ${min} to ${max}`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--check') opts.check = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--runs') opts.runs = integer(arg, argv[++i], 10, 1000);
    else if (arg === '--warmup') opts.warmup = integer(arg, argv[++i], 0, 100);
    else if (arg === '--subjects') {
      const list = String(argv[++i] ?? '').split(',').filter((s) => s !== '');
      const unknown = list.find((s) => !SUBJECT_NAMES.includes(s));
      if (list.length === 0 || unknown !== undefined) {
        throw usage(`--subjects takes a comma-separated subset of ${SUBJECT_NAMES.join(',')}${unknown ? `, not ${JSON.stringify(unknown)}` : ''}`);
      }
      opts.subjects = SUBJECT_NAMES.filter((s) => list.includes(s));
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
  process.stderr.write(`bench:shim: ${message}\n`);
}

/**
 * The subjects to run, each a function performing one timed spawn.
 * @param {string[]} names
 * @param {string} root temp dir of this run
 */
function makeSubjects(names, root) {
  const all = {
    shim: () =>
      timeMcpServer({
        name: 'memoryd-mcp',
        command: process.execPath,
        // A socket nobody listens on and no autostart: tools/list must be
        // answered without a daemon, so the daemon's start-up is not measured.
        args: [SHIM_BIN, '--socket', path.join(root, 'x.sock'), '--no-autostart'],
        checkTools: (tools) => {
          const missing = SHIM_TOOLS.filter((t) => !tools.includes(t));
          return missing.length > 0 ? `tools/list lacks ${missing.join(', ')} (got ${tools.join(', ') || 'none'})` : undefined;
        },
      }),
    'server-memory': () =>
      timeMcpServer({
        name: 'server-memory',
        command: process.execPath,
        args: [SERVER_MEMORY_BIN],
        env: { MEMORY_FILE_PATH: path.join(root, 'server-memory.jsonl') },
        checkTools: (tools) => (tools.length === 0 ? 'tools/list is empty' : undefined),
      }),
    node: () => timeBareNode(),
  };
  return names.map((name) => ({ name, once: all[name] }));
}

/** Median of `values` (mean of the two middle ones for an even count). */
function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** @param {number[]} samplesMs @param {boolean[]} eofExits */
function summarize(samplesMs, eofExits) {
  const sorted = Float64Array.from(samplesMs).sort();
  return {
    runs: sorted.length,
    medianMs: median(sorted),
    p90Ms: percentile(sorted, 90),
    minMs: sorted[0],
    maxMs: sorted[sorted.length - 1],
    exitedOnEof: eofExits.length === 0 ? null : eofExits.filter(Boolean).length,
    samplesMs,
  };
}

/**
 * Runs `warmup` untimed and `runs` timed spawns per subject, round-robin;
 * each round starts with the next subject, so none always goes first.
 */
async function measure(subjects, opts) {
  const samples = Object.fromEntries(subjects.map((s) => [s.name, { ms: [], eof: [] }]));
  const total = opts.warmup + opts.runs;
  for (let round = 0; round < total; round++) {
    const timed = round >= opts.warmup;
    for (let k = 0; k < subjects.length; k++) {
      const subject = subjects[(round + k) % subjects.length];
      const result = await subject.once();
      if (!timed) continue;
      samples[subject.name].ms.push(result.readyMs);
      if (result.exitedOnEof !== undefined) samples[subject.name].eof.push(result.exitedOnEof);
    }
    progress(timed ? `round ${round - opts.warmup + 1}/${opts.runs}` : `warm-up ${round + 1}/${opts.warmup}`);
  }
  return Object.fromEntries(subjects.map((s) => [s.name, summarize(samples[s.name].ms, samples[s.name].eof)]));
}

/** The ratios of medians and issue 3's targets (n/a when a subject did not run). */
function judge(results) {
  const shim = results.shim?.medianMs;
  const sm = results['server-memory']?.medianMs;
  const node = results.node?.medianMs;
  const ratios = {
    shimToServerMemory: shim !== undefined && sm !== undefined ? shim / sm : null,
    shimToNode: shim !== undefined && node !== undefined ? shim / node : null,
  };
  const targets = [
    { target: 'shim median (spawn -> tools/list answered)', value: shim ?? null, unit: 'ms', limit: TARGET_SHIM_MEDIAN_MS },
    { target: 'shim median / server-memory median', value: ratios.shimToServerMemory, unit: 'x', limit: TARGET_RATIO_TO_SERVER_MEMORY },
  ].map((t) => ({ ...t, op: '<=', pass: t.value === null ? null : t.value <= t.limit }));
  return { ratios, targets };
}

const ms = (v) => v.toFixed(1);

function printTable(results, verdict, meta) {
  const rows = Object.entries(results).map(([name, r]) => [
    name, r.runs, ms(r.medianMs), ms(r.p90Ms), ms(r.minMs), ms(r.maxMs),
    r.exitedOnEof === null ? '-' : `${r.exitedOnEof}/${r.runs}`,
  ]);
  const header = ['subject', 'runs', 'median ms', 'p90 ms', 'min ms', 'max ms', 'exit on EOF'];
  const ratio = (v) => (v === null ? 'n/a' : `${v.toFixed(2)}x`);
  const out = [
    `node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} CPU(s), ${meta.runs} timed spawns per subject ` +
      `after ${meta.warmup} warm-up, round-robin; MCP subjects: spawn -> initialize -> tools/list answered; node: spawn -> exit`,
    '',
    formatTable(header, rows),
    '',
    `ratios of medians: shim/server-memory ${ratio(verdict.ratios.shimToServerMemory)}, shim/node ${ratio(verdict.ratios.shimToNode)}`,
    '',
    'targets (issue 3):',
    ...verdict.targets.map((t) => {
      const value = t.value === null ? 'n/a' : t.unit === 'ms' ? `${ms(t.value)} ms` : `${t.value.toFixed(2)}x`;
      const limit = t.unit === 'ms' ? `${t.limit} ms` : `${t.limit}x`;
      return `  ${t.pass === null ? 'n/a ' : t.pass ? 'PASS' : 'FAIL'}  ${t.target}: ${value} (target ${t.op} ${limit})`;
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
  await ensureBenchDeps();
  // Fail before measuring anything when a subject is not there.
  if (opts.subjects.includes('shim') && !fs.existsSync(SHIM_BIN)) {
    throw new Error(`${SHIM_BIN} is missing: build first (npm run build), or pass --subjects server-memory,node`);
  }
  if (opts.subjects.includes('server-memory') && !fs.existsSync(SERVER_MEMORY_BIN)) {
    throw new Error(`${SERVER_MEMORY_BIN} is missing: install the dev dependencies (npm ci)`);
  }
  const root = makeTempDir('memoryd-bench-shim-');
  const startedAt = new Date().toISOString();
  const results = await measure(makeSubjects(opts.subjects, root), opts);
  const verdict = judge(results);
  const meta = { startedAt, runs: opts.runs, warmup: opts.warmup };
  if (opts.json) {
    const doc = { ...meta, node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, subjects: results, ...verdict };
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  } else {
    printTable(results, verdict, meta);
  }
  return opts.check && verdict.targets.some((t) => t.pass !== true) ? 1 : 0;
}

function cleanup() {
  killAllSync();
  cleanupSync();
}

main().then(
  (code) => {
    cleanup();
    // Exit explicitly: a handle someone leaked must not keep the run alive.
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench:shim: ${err?.message ?? err}\n`);
    cleanup();
    process.exit(err?.exitCode ?? 1);
  },
);
