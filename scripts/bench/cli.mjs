// `npm run bench:cli`: how long a script waits for `memoryctl status`, from
// spawn to exit with the answer printed, against a real daemon that is
// already serving (its own start-up is not memoryctl's). Next to it, in the
// same run and interleaved round-robin so they share the machine's noise:
// the same command run from the compiled modules (dist/bin/main.js, what
// runs without the bundle) and a bare `node -e 0` (the floor). Every spawn
// is a cold start of memoryctl: nothing is excluded but the first round.
// Prints medians, p90, min, max, the ratios and issue 14's target; progress
// goes to stderr, the table (or, with --json, one JSON document) to stdout.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { assertDaemonBuilt, cleanupSync, makeTempDir, startNode, stopChild, waitForSocket } from './children.mjs';
import { formatTable, percentile } from './stats.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MEMORYCTL_BIN = path.join(repo, 'packages/cli/bin/memoryctl.js');
const MEMORYCTL_DIST = path.join(repo, 'packages/cli/dist/bin/main.js');
const DAEMON_BIN = path.join(repo, 'packages/daemon/bin/memoryd.js');
/** Issue 14's target, as the shim's (issue 3). */
const TARGET_MEDIAN_MS = 150;
const SPAWN_TIMEOUT_MS = 15_000;

const HELP = `usage: node scripts/bench/cli.mjs [--runs N] [--warmup N] [--json]

Times memoryctl from spawn to exit, answering \`status\` from a daemon
started first on a temp socket and data dir. Subjects, round-robin:

  memoryctl       node packages/cli/bin/memoryctl.js status --socket S --no-autostart
                  (the bin: the bundle and its V8 code cache)
  memoryctl-dist  the same command from the compiled modules (dist/bin/main.js)
  node-file       node EMPTY.js, an empty script file (the floor of any
                  Node CLI: starting Node and its module loader)
  node            node -e 0 (starting Node itself)

  --runs N     timed spawns per subject, 5-1000 (default 20)
  --warmup N   untimed rounds first, 0-100 (default 1)
  --json       one JSON document instead of the table
  --help       this text

Needs a build (npm run build). Exit 1 when the target (memoryctl median
<= ${TARGET_MEDIAN_MS} ms) fails.`;

/** Spawns `node ARGS` and times it to exit; a non-zero exit or a missing answer fails the run. */
async function timeSpawn(args, expect) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (t) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t) => (out += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), SPAWN_TIMEOUT_MS);
  const code = await new Promise((resolve) => child.once('close', resolve));
  const ms = performance.now() - startedAt;
  clearTimeout(timer);
  if (code !== 0 || !expect.test(out)) throw new Error(`node ${args.join(' ')} exited with ${code}:\n${out}`);
  return ms;
}

function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { runs: sorted.length, medianMs: percentile(sorted, 50), p90Ms: percentile(sorted, 90), minMs: sorted[0], maxMs: sorted[sorted.length - 1] };
}

async function main() {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '20' }, warmup: { type: 'string', default: '1' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  const runs = Number(values.runs);
  const warmup = Number(values.warmup);
  if (!Number.isInteger(runs) || runs < 5 || runs > 1000) throw Object.assign(new Error('--runs needs an integer from 5 to 1000'), { exitCode: 2 });
  if (!Number.isInteger(warmup) || warmup < 0 || warmup > 100) throw Object.assign(new Error('--warmup needs an integer from 0 to 100'), { exitCode: 2 });
  assertDaemonBuilt();
  if (!fs.existsSync(MEMORYCTL_DIST)) throw new Error(`${MEMORYCTL_DIST} is missing: build first (npm run build)`);

  const dir = makeTempDir('memoryd-bench-cli-');
  const socket = path.join(dir, 'd.sock');
  const daemon = startNode('memoryd', [DAEMON_BIN, '--socket', socket, '--data-dir', path.join(dir, 'data'), '--log-level', 'error']);
  await waitForSocket(daemon, socket);
  const status = ['status', '--socket', socket, '--no-autostart'];
  const emptyScript = path.join(dir, 'empty.cjs');
  fs.writeFileSync(emptyScript, '');
  const answered = /health:\s+ok/;
  const subjects = [
    { name: 'memoryctl', once: () => timeSpawn([MEMORYCTL_BIN, ...status], answered) },
    {
      name: 'memoryctl-dist',
      once: () =>
        timeSpawn(
          ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(MEMORYCTL_DIST)}); await main(process.argv.slice(1));`, ...status],
          answered,
        ),
    },
    { name: 'node-file', once: () => timeSpawn([emptyScript], /^$/) },
    { name: 'node', once: () => timeSpawn(['-e', '0'], /^$/) },
  ];
  const samples = Object.fromEntries(subjects.map((s) => [s.name, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (let k = 0; k < subjects.length; k++) {
      const subject = subjects[(round + k) % subjects.length];
      const ms = await subject.once();
      if (round >= warmup) samples[subject.name].push(ms);
    }
    process.stderr.write(`bench:cli: ${round < warmup ? `warm-up ${round + 1}/${warmup}` : `round ${round - warmup + 1}/${runs}`}\n`);
  }
  await stopChild(daemon);

  const results = Object.fromEntries(subjects.map((s) => [s.name, summarize(samples[s.name])]));
  const ctl = results.memoryctl.medianMs;
  const ratios = { toDist: ctl / results['memoryctl-dist'].medianMs, toNodeFile: ctl / results['node-file'].medianMs, toNode: ctl / results.node.medianMs };
  const pass = ctl <= TARGET_MEDIAN_MS;
  if (values.json) {
    const doc = { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: os.cpus().length, runs, warmup, subjects: results, ratios, target: { medianMs: TARGET_MEDIAN_MS, pass } };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    const f = (v) => v.toFixed(1);
    const rows = Object.entries(results).map(([name, r]) => [name, r.runs, f(r.medianMs), f(r.p90Ms), f(r.minMs), f(r.maxMs)]);
    process.stdout.write(
      [
        `node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} CPU(s), ${runs} timed spawns per subject after ${warmup} warm-up round(s), round-robin; spawn -> exit`,
        '',
        formatTable(['subject', 'runs', 'median ms', 'p90 ms', 'min ms', 'max ms'], rows),
        '',
        `ratios of medians: memoryctl/memoryctl-dist ${ratios.toDist.toFixed(2)}x, memoryctl/node-file ${ratios.toNodeFile.toFixed(2)}x, memoryctl/node ${ratios.toNode.toFixed(2)}x`,
        `target (issue 14): ${pass ? 'PASS' : 'FAIL'}  memoryctl status median ${f(ctl)} ms (target <= ${TARGET_MEDIAN_MS} ms)`,
        '',
      ].join('\n'),
    );
  }
  return pass ? 0 : 1;
}

main().then(
  (code) => {
    cleanupSync();
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`bench:cli: ${err?.message ?? err}\n`);
    cleanupSync();
    process.exit(err?.exitCode ?? 1);
  },
);
