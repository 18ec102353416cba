#!/usr/bin/env node
// The store's own cost, in one process, without the socket: memory.add and
// a first memory.list page of 100 facts on a --no-sync store, oldest first
// and newest first in alternating blocks (ADR 0039), each run in a fresh
// child process, alternated with a baseline checkout when one is given
// (ADR 0016 measured the seals' cost with it). Prints every run and the
// medians; with a baseline, the ratio new ÷ baseline (a baseline without
// ADR 0039 answers its newest-first pages oldest first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HELP = `usage: node scripts/bench/store.mjs [--baseline DIR] [--runs N] [--adds N] [--lists N]

  --baseline DIR  another built checkout (npm ci done) to alternate with
  --runs N        runs of each checkout (default 3)
  --adds N        timed adds per run, after 2,000 untimed (default 5000)
  --lists N       timed first pages of 100 facts per run, each way (default 1000)
  --help          this text
`;

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, runs: { type: 'string' }, adds: { type: 'string' }, lists: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const runs = Number(values.runs ?? 3);
const adds = Number(values.adds ?? 5000);
const lists = Number(values.lists ?? 1000);

// One run: a child that opens a store, adds, lists, and prints µs per add and per page.
const child = `
const [root, dir, adds, lists] = process.argv.slice(1);
const { openStore, silentLogger } = await import(root + '/packages/daemon/dist/index.js');
const store = await openStore({ dataDir: dir, sync: false, logger: silentLogger, searchMemoryPostings: 0 });
const words = 'alpha beta gamma delta launch code secret memory agent fact zebra quartz river stone cloud paper glass metal'.split(' ');
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const content = (i) => Array.from({ length: 12 }, () => words[Math.floor(rnd() * words.length)]).join(' ') + ' item' + i;
for (let i = 0; i < 2000; i++) await store.addFact({ agentId: 'warm', content: content(i) });
let t = process.hrtime.bigint();
for (let i = 0; i < +adds; i++) await store.addFact({ agentId: 'a', content: content(i + 10000) });
const add = Number(process.hrtime.bigint() - t) / 1000 / +adds;
// Oldest first and newest first in alternating blocks, so both meet the same caches.
const spent = { oldest: 0n, newest: 0n };
for (let block = 0; block < 10; block++) {
  for (const order of ['oldest', 'newest']) {
    t = process.hrtime.bigint();
    for (let i = 0; i < +lists / 10; i++) await store.listFacts({ agentId: 'a', limit: 100, order });
    spent[order] += process.hrtime.bigint() - t;
  }
}
const list = Number(spent.oldest) / 1000 / +lists;
const newest = Number(spent.newest) / 1000 / +lists;
await store.close();
console.log(JSON.stringify({ add, list, newest }));
`;

function run(root) {
  const dir = mkdtempSync(join(tmpdir(), 'mbs-'));
  try {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child, root, dir, String(adds), String(lists)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench run in ${root} failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sides = values.baseline === undefined ? [['this checkout', here]] : [['baseline', resolve(values.baseline)], ['this checkout', here]];
const results = new Map(sides.map(([name]) => [name, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, root] of sides) {
    const r = run(root);
    results.get(name).push(r);
    console.log(`${name.padEnd(14)} run ${i + 1}: add ${r.add.toFixed(0)} µs, first list page of 100 ${r.list.toFixed(0)} µs, newest first ${r.newest.toFixed(0)} µs`);
  }
}
const med = new Map([...results].map(([name, rs]) => [name, { add: median(rs.map((r) => r.add)), list: median(rs.map((r) => r.list)), newest: median(rs.map((r) => r.newest)) }]));
for (const [name, m] of med) {
  console.log(`${name.padEnd(14)} median: add ${m.add.toFixed(0)} µs, list page ${m.list.toFixed(0)} µs, newest first ${m.newest.toFixed(0)} µs (${(m.newest / m.list).toFixed(2)} × oldest first)`);
}
if (med.has('baseline')) {
  const [b, n] = [med.get('baseline'), med.get('this checkout')];
  console.log(`ratio (this ÷ baseline): add ${(n.add / b.add).toFixed(2)}, list page ${(n.list / b.list).toFixed(2)}`);
}
