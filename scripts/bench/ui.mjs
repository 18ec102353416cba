#!/usr/bin/env node
// `npm run bench:ui`: what the web page (memoryctl ui) adds to what a
// person waits for. Against a real daemon holding one agent's N facts
// (default 100,000), the page's two reads, an agent's newest page of 25
// facts and a search, each timed three ways, interleaved round-robin so
// they share the machine's noise:
//   page    POST /api/call through memoryctl ui's server (HTTP, the session
//           check, JSON in and out, then the daemon over its socket)
//   client  the same call through @memoryd/client straight to the socket
//           (what the page's server does inside: the floor of the hop)
//   file    GET /app.css from the page's server: HTTP alone, no daemon
// The first page read after memoryctl ui starts is counted on its own (a
// fresh connection to the daemon). Prints p50 and p99 per subject and the
// ratios page ÷ client; progress goes to stderr.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { assertDaemonBuilt, makeTempDir, startNode, stopChild, waitForSocket } from './children.mjs';
import { formatTable, percentile } from './stats.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { DaemonClient } = await import(path.join(repo, 'packages/client/dist/index.js'));
const { AdminImport, MemoryList, MemorySearch } = await import(path.join(repo, 'packages/protocol/dist/index.js'));
const { makeUlid } = await import(path.join(repo, 'packages/test-support/dist/index.js'));

const HELP = `usage: node scripts/bench/ui.mjs [--facts N] [--rounds N]

  --facts N    facts in the one agent (default 100000)
  --rounds N   timed rounds, each subject once a round (default 300)
  --help       this text

Needs a build (npm run build).`;

const { values } = parseArgs({ options: { facts: { type: 'string' }, rounds: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const FACTS = Number(values.facts ?? 100_000);
const ROUNDS = Number(values.rounds ?? 300);
/** Kept-alive connections, as a browser keeps them. */
const agent = new http.Agent({ keepAlive: true });
const WORDS = 'harbour garden kettle lantern meadow orchard pepper quartz river saddle timber velvet willow amber beacon cedar'.split(' ');

assertDaemonBuilt();
const dir = makeTempDir('memoryd-bench-ui-');
const socket = path.join(dir, 'd.sock');
const daemon = startNode('memoryd', [path.join(repo, 'packages/daemon/bin/memoryd.js'), '--socket', socket, '--data-dir', path.join(dir, 'data'), '--log-level', 'error']);
let ui;
try {
  await waitForSocket(daemon, socket);
  const client = new DaemonClient({ socket, autostart: false, requestTimeoutMs: 120_000 });
  process.stderr.write(`seeding ${FACTS} facts…\n`);
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  for (let start = 0; start < FACTS; start += 1000) {
    const records = [];
    for (let i = start; i < Math.min(FACTS, start + 1000); i++) {
      const at = new Date(t0 + i * 1000).toISOString();
      const text = `${WORDS[i % 16]} ${WORDS[(i * 7) % 16]} ${WORDS[(i * 13) % 16]} note ${i}`;
      records.push({ type: 'fact', agentId: 'big', id: makeUlid(t0 + i * 1000, i), content: text, createdAt: at });
    }
    await client.call(AdminImport, { records });
  }
  ui = await startUi(socket);
  const session = await post(ui, '/api/session', undefined, { authorization: `Bearer ${ui.token}` });
  const auth = { authorization: `Bearer ${session.session}` };
  const listParams = { agentId: 'big', limit: 25, order: 'newest' };
  const searchParams = (i) => ({ agentId: 'big', query: `${WORDS[i % 16]} ${WORDS[(i * 5) % 16]}`, limit: 20 });
  const first = await time(() => post(ui, '/api/call', { method: 'memory.list', params: listParams }, auth));
  const subjects = {
    'list page': (i) => post(ui, '/api/call', { method: 'memory.list', params: listParams }, auth),
    'list client': () => client.call(MemoryList, listParams),
    'search page': (i) => post(ui, '/api/call', { method: 'memory.search', params: searchParams(i) }, auth),
    'search client': (i) => client.call(MemorySearch, searchParams(i)),
    'file (HTTP floor)': () => request(ui, 'GET', '/app.css', undefined, {}),
  };
  const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  process.stderr.write(`${ROUNDS} rounds…\n`);
  for (let round = -20; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(subjects)) {
      const ms = await time(() => run(round));
      if (round >= 0) samples[name].push(ms);
    }
  }
  const stat = (name) => {
    const sorted = Float64Array.from(samples[name]).sort();
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  const rows = Object.keys(subjects).map((name) => [name, stat(name).p50.toFixed(2), stat(name).p99.toFixed(2)]);
  process.stdout.write(`memoryctl ui, ${FACTS} facts in one agent, ${ROUNDS} rounds interleaved\n`);
  process.stdout.write(`${formatTable(['subject', 'p50 ms', 'p99 ms'], rows)}\n`);
  for (const what of ['list', 'search']) {
    const page = stat(`${what} page`);
    const direct = stat(`${what} client`);
    process.stdout.write(`${what}: page ÷ client  p50 ${(page.p50 / direct.p50).toFixed(2)}  p99 ${(page.p99 / direct.p99).toFixed(2)}\n`);
  }
  process.stdout.write(`first list page after memoryctl ui starts: ${first.toFixed(1)} ms (${(first / stat('list page').p50).toFixed(1)} × the page's p50)\n`);
  await client.close();
} finally {
  if (ui !== undefined) {
    ui.child.kill('SIGINT');
    await new Promise((resolve) => ui.child.once('exit', resolve));
  }
  await stopChild(daemon);
}

/** Milliseconds `run` takes. */
async function time(run) {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

/** One HTTP request to the page's server on 127.0.0.1, naming its host (names under localhost are the browser's to resolve); resolves with the status and body. */
function request(page, method, route, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: page.port, method, path: route, agent, headers: { host: page.host, origin: page.origin, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** POSTs JSON to the page's server, as the page does; the result, or a thrown error. */
async function post(page, route, body, headers) {
  const res = await request(page, 'POST', route, body === undefined ? undefined : JSON.stringify(body), { 'content-type': 'application/json', ...headers });
  const answer = JSON.parse(res.text);
  if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.text}`);
  return answer.result;
}

/** Starts memoryctl ui --no-open on `socket`; resolves with its origin, token and process. */
async function startUi(socket) {
  const child = spawn(process.execPath, [path.join(repo, 'packages/cli/bin/memoryctl.js'), 'ui', '--no-open', '--socket', socket, '--no-autostart'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!/http:\/\/\S+/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`memoryctl ui printed no address: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = new URL(/http:\/\/\S+/.exec(out)[0]);
  return { child, origin: url.origin, host: url.host, port: Number(url.port), token: /#token=(.+)$/.exec(url.hash)[1] };
}
