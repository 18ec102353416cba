import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { AdminImport, AgentList, DaemonStatus, Limits, MemoryAdd } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, type DaemonHandle, MEMORYCTL_BIN, makeUlid, startDaemon, tempDir, trackCloser, waitFor, withTimeout } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';
import { ask, spawnUi, startUi, type UiProcess } from './helpers/ui.js';

// The page's security rules (docs/operations.md, "Web page"), each broken
// on purpose with raw HTTP requests: no token, a wrong or used token, a
// foreign Host, a foreign or missing Origin, a body over the bound, a
// daemon method the page may not call; and what must never happen: the
// token in a log, a CORS header, a TCP listener in the daemon.

after(cleanupAll);

/** Swaps a page server's printed token for its session token, as the page does. */
async function openSession(ui: UiProcess): Promise<string> {
  const r = await ask(ui, { method: 'POST', path: '/api/session', headers: { origin: ui.origin, authorization: `Bearer ${ui.token}` } });
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { result: { session: string } }).result.session;
}

describe('memoryctl ui: every request is checked', () => {
  let daemon: DaemonHandle;
  let ui: UiProcess;
  let client: DaemonClient;
  let session: string;
  /** Headers of a request from the page: its origin and its session. */
  let page: Record<string, string>;
  const agentList = JSON.stringify({ method: 'agent.list', params: {} });

  before(async () => {
    daemon = await startDaemon({ logLevel: 'error' });
    client = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => client.close());
    await client.call(MemoryAdd, { agentId: 'alice', content: 'alice keeps her keys in the blue bowl' });
    ui = await startUi(daemon.socket);
    trackCloser(async () => void (await ui.stop()));
  });

  it('prints a fresh origin under localhost with the token in the fragment, and serves the page\'s files on both loopbacks', async () => {
    assert.match(ui.url, /^http:\/\/[0-9a-f]{24}\.localhost:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    const other = await startUi(daemon.socket);
    assert.notEqual(other.host.split(':')[0], ui.host.split(':')[0], 'each run has its own origin');
    assert.equal(await other.stop(), 0);
    // A browser may reach NAME.localhost on either loopback: both are this server's, so no other process can hold one.
    assert.equal((await ask(ui, {}, '::1')).status, 200);
    for (const path of ['/', '/app.js', '/app.css']) {
      const r = await ask(ui, { path });
      assert.equal(r.status, 200, path);
      assert.doesNotMatch(r.body, /alice/);
      assert.equal(r.headers['set-cookie'], undefined, 'no cookie: cookies are shared by every port of 127.0.0.1');
    }
  });

  it('without the session token, or with a wrong one, the API is 401 and gives nothing', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${ui.token}x`, `Basic ${ui.token}`]) {
      const headers: Record<string, string> = { origin: ui.origin, 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) };
      const call = await ask(ui, { method: 'POST', path: '/api/call', headers, body: agentList });
      assert.equal(call.status, 401, String(authorization));
      assert.doesNotMatch(call.body, /alice/);
      assert.equal((await ask(ui, { method: 'POST', path: '/api/export-ticket', headers, body: '{}' })).status, 401);
      assert.equal((await ask(ui, { method: 'POST', path: '/api/import', headers, body: '{"type":"memoryd-export","version":1}\n' })).status, 401);
    }
    const noTicket = await ask(ui, { path: '/api/export' });
    assert.equal(noTicket.status, 401);
    assert.doesNotMatch(noTicket.body, /memoryd-export|alice/);
    assert.equal((await ask(ui, { path: '/api/export?ticket=guess' })).status, 401);
  });

  it('the printed token is swapped once for the session token; the second swap is refused', async () => {
    const wrong = await ask(ui, { method: 'POST', path: '/api/session', headers: { origin: ui.origin, authorization: 'Bearer not-the-token' } });
    assert.equal(wrong.status, 401);
    session = await openSession(ui);
    assert.notEqual(session, ui.token);
    page = { origin: ui.origin, authorization: `Bearer ${session}`, 'content-type': 'application/json' };
    const again = await ask(ui, { method: 'POST', path: '/api/session', headers: { origin: ui.origin, authorization: `Bearer ${ui.token}` } });
    assert.equal(again.status, 401, 'the token works once');
    const asToken = await ask(ui, { method: 'POST', path: '/api/call', headers: { ...page, authorization: `Bearer ${ui.token}` }, body: agentList });
    assert.equal(asToken.status, 401, 'the printed token is no session');
    const ok = await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList });
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { result: { agents: [{ agentId: 'alice', facts: 1, checkpoints: 0 }] } });
  });

  it('a download needs a ticket the session asked for, good once and for one agent', async () => {
    const ticket = async (agentId?: string) => (JSON.parse((await ask(ui, { method: 'POST', path: '/api/export-ticket', headers: page, body: JSON.stringify(agentId === undefined ? {} : { agentId }) })).body) as { result: { ticket: string } }).result.ticket;
    const t = await ticket('alice');
    const first = await ask(ui, { path: `/api/export?ticket=${t}` });
    assert.equal(first.status, 200);
    assert.match(String(first.headers['content-disposition']), /^attachment; filename="memoryd-alice-[0-9TZ-]+\.jsonl"$/);
    const lines = first.body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; agentId?: string });
    assert.equal(lines[0]!.type, 'memoryd-export');
    assert.deepEqual(lines.slice(1).map((l) => l.agentId), ['alice']);
    assert.equal((await ask(ui, { path: `/api/export?ticket=${t}` })).status, 401, 'a ticket works once');
    assert.equal((await ask(ui, { path: `/api/export?ticket=${await ticket()}` })).status, 200);
  });

  it('a Host other than this run\'s NAME.localhost:PORT is refused (DNS rebinding, other runs), even with the session', async () => {
    const name = ui.host.split(':')[0]!;
    for (const host of [`evil.example:${ui.port}`, `localhost:${ui.port}`, `127.0.0.1:${ui.port}`, `other.localhost:${ui.port}`, name, `${name}:${ui.port + 1}`, `${name}.evil.example:${ui.port}`]) {
      for (const r of [await ask(ui, { headers: { host } }), await ask(ui, { method: 'POST', path: '/api/call', headers: { ...page, host }, body: agentList })]) {
        assert.equal(r.status, 421, host);
        assert.doesNotMatch(r.body, /alice/);
      }
    }
  });

  it('a request target that is not a path is 400, and the server goes on', async () => {
    for (const target of ['http://', 'http://evil.example/', '//evil.example/', '*', '/\\[', '/\\evil/api/call']) {
      assert.equal((await ask(ui, { path: target, headers: page })).status, 400, target);
    }
    assert.equal((await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList })).status, 200);
  });

  it('a change needs the page\'s own Origin: a foreign one, another port\'s, or none is 403 and changes nothing', async () => {
    const add = JSON.stringify({ method: 'memory.add', params: { agentId: 'mallory', content: 'planted' } });
    for (const origin of ['http://evil.example', `http://127.0.0.1:${ui.port + 1}`, 'null', undefined]) {
      const headers: Record<string, string> = { ...page };
      if (origin === undefined) delete headers['origin'];
      else headers['origin'] = origin;
      for (const path of ['/api/call', '/api/import', '/api/export-ticket', '/api/session']) {
        const r = await ask(ui, { method: 'POST', path, headers, body: path === '/api/call' ? add : '{}' });
        assert.equal(r.status, 403, `${path} from ${String(origin)}`);
      }
    }
    const agents = await client.call(AgentList, {});
    assert.deepEqual(agents.agents.map((a) => a.agentId), ['alice']);
  });

  it('no CORS: a preflight from another origin is refused and no answer carries Access-Control-*', async () => {
    const pre = await ask(ui, { method: 'OPTIONS', path: '/api/call', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    assert.equal(pre.status, 403);
    for (const r of [pre, await ask(ui, { headers: { origin: 'http://evil.example' } }), await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList })]) {
      assert.deepEqual(Object.keys(r.headers).filter((h) => h.startsWith('access-control-')), []);
    }
  });

  it('every answer carries the policy: no inline script, no other origin, no frame', async () => {
    for (const r of [await ask(ui, {}), await ask(ui, { path: '/app.js' }), await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList }), await ask(ui, { path: '/nothing' })]) {
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin');
    }
  });

  it('a body over the daemon\'s line bound is 413, whether declared or streamed, and a file line over it too', async () => {
    const big = Buffer.alloc(Limits.maxLineBytes + 1, 0x20);
    const declared = await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: big });
    assert.equal(declared.status, 413);
    const streamed = await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: big, chunked: true });
    assert.equal(streamed.status, 413);
    const line = Buffer.concat([Buffer.from('{"type":"memoryd-export","version":1,"createdAt":"2026-12-07T00:00:00.000Z","daemonVersion":"0"}\n'), big]);
    const file = await ask(ui, { method: 'POST', path: '/api/import', headers: page, body: line, chunked: true });
    assert.equal(file.status, 413);
    assert.equal(JSON.parse(file.body).error.code, 'UI_TOO_LARGE');
    // The server still serves.
    assert.equal((await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList })).status, 200);
  });

  it('only the page\'s methods pass: shutdown, admin and unknown methods are 400 and never reach the daemon', async () => {
    for (const method of ['daemon.shutdown', 'admin.reembed', 'admin.import', 'checkpoint.save', 'no.such', 42]) {
      const r = await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: JSON.stringify({ method, params: {} }) });
      assert.equal(r.status, 400, String(method));
      assert.equal(JSON.parse(r.body).error.code, 'UI_BAD_REQUEST');
    }
    assert.equal((await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: '{' })).status, 400);
    const status = await client.call(DaemonStatus, {});
    assert.equal(status.pid, daemon.pid);
    const badParams = await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: JSON.stringify({ method: 'memory.list', params: { agentId: '' } }) });
    assert.equal(badParams.status, 400);
    assert.equal(JSON.parse(badParams.body).error.code, -32602);
  });

  it('a download cut off ends its export, and the server goes on', async () => {
    const c = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => c.close());
    const t = Date.parse('2026-04-01T00:00:00.000Z');
    for (let k = 0; k < 5; k++) {
      const records = Array.from({ length: 1000 }, (_, j) => {
        const i = k * 1000 + j;
        return { type: 'fact', agentId: 'long', id: makeUlid(t + i, i), content: `a long export, line ${i} ${'x'.repeat(2000)}`, createdAt: new Date(t + i).toISOString() };
      });
      assert.equal((await c.call(AdminImport, { records })).imported, 1000);
    }
    for (let round = 0; round < 3; round++) {
      const ticket = (JSON.parse((await ask(ui, { method: 'POST', path: '/api/export-ticket', headers: page, body: '{"agentId":"long"}' })).body) as { result: { ticket: string } }).result.ticket;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: ui.port, path: `/api/export?ticket=${ticket}`, headers: { host: ui.host } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
        req.end();
      });
    }
    assert.equal(ui.child.exitCode, null, 'the page server is still running');
    const whole = await ask(ui, { path: `/api/export?ticket=${(JSON.parse((await ask(ui, { method: 'POST', path: '/api/export-ticket', headers: page, body: '{"agentId":"long"}' })).body) as { result: { ticket: string } }).result.ticket}` });
    assert.equal(whole.body.trim().split('\n').length, 5001);
  });

  it('a refused request is answered and its connection closed: a body sent slowly without the token holds nothing', async () => {
    // More than a browser ever opens, fewer than the server's 256 connections (beyond them it drops, unanswered).
    const sockets = await withTimeout(Promise.all(
      Array.from({ length: 150 }, () =>
        new Promise<{ status: number; closed: Promise<void> }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port: ui.port, method: 'POST', path: '/api/call', headers: { host: ui.host, origin: ui.origin, 'content-length': String(1e9) } }, (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, closed: new Promise((done) => req.socket!.once('close', () => done())) });
          });
          req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err)));
          // One byte of the billion promised, and never more.
          req.write('{');
        }),
      ),
    ), 20_000, 'every refused request to be answered');
    assert.deepEqual([...new Set(sockets.map((x) => x.status))], [401]);
    await withTimeout(Promise.all(sockets.map((x) => x.closed)), 10_000, 'the server to close every refused connection');
    assert.equal((await ask(ui, { method: 'POST', path: '/api/call', headers: page, body: agentList })).status, 200);
  });

  it('the token is printed once, on stdout, and never logged; the session never appears', () => {
    assert.equal(ui.stdout().split(ui.token).length - 1, 1);
    assert.doesNotMatch(ui.stderr(), new RegExp(ui.token));
    assert.doesNotMatch(ui.stdout() + ui.stderr(), new RegExp(session));
  });

  it('the daemon listens on no TCP port: its only door is the socket', () => {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${daemon.pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${daemon.pid}/fd/${fd}`, { encoding: 'utf8' }) ?? '');
      if (m !== null) inodes.add(m[1]!);
    }
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      const rows = readFileSync(table, 'utf8').trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
      // Column 3 is the state (0A: listening), column 9 the socket's inode.
      const listening = rows.filter((r) => r[3] === '0A' && inodes.has(r[9]!));
      assert.deepEqual(listening, [], `${table}: the daemon listens on TCP`);
    }
  });

  it('Ctrl-C stops the page with exit 0 and closes its daemon connection', async () => {
    const before = (await client.call(DaemonStatus, {})).connections;
    const second = await startUi(daemon.socket);
    const during = (await client.call(DaemonStatus, {})).connections;
    assert.equal(during, before + 1);
    assert.equal(await second.stop(), 0);
    await waitFor(async () => (await client.call(DaemonStatus, {})).connections === before, 5000, 'the page\'s daemon connection to close');
    const refused = await new Promise<boolean>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: second.port, path: '/' }, () => resolve(false));
      req.on('error', () => resolve(true));
      req.end();
    });
    assert.equal(refused, true, 'the port is closed');
  });
});

describe('memoryctl ui: its options, and what it does when things go wrong', () => {
  let daemon: DaemonHandle;
  before(async () => {
    daemon = await startDaemon({ logLevel: 'error' });
  });

  it('--port N serves on N; a port in use is one sentence and exit 1; a bad --port is a usage error', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const ui = await startUi(daemon.socket, ['--port', String(port)]);
    assert.equal(ui.port, port);
    const busy = await memoryctl(['ui', '--no-open', '--socket', daemon.socket, '--port', String(port)]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, new RegExp(`port ${port} .*in use`));
    assert.equal(await ui.stop(), 0);
    for (const bad of ['0', '65536', 'http']) {
      const r = await memoryctl(['ui', '--no-open', '--socket', daemon.socket, '--port', bad]);
      assert.equal(r.code, 2, bad);
      assert.match(r.stderr, /--port must be a port number/);
    }
  });

  it('with no daemon it says so and exits 3, serving nothing', async () => {
    const dir = tempDir('ui-');
    const r = await memoryctl(['ui', '--no-open', '--socket', `${dir}/none.sock`, '--no-autostart']);
    assert.equal(r.code, 3);
    assert.equal(r.stdout, '');
  });

  it('an upload cut off ends its import at the batch it stored, and the same file again completes it', async () => {
    const c = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => c.close());
    const ui = await startUi(daemon.socket);
    const auth = { authorization: `Bearer ${await openSession(ui)}`, origin: ui.origin };
    const t = Date.parse('2026-03-01T00:00:00.000Z');
    const lines = [JSON.stringify({ type: 'memoryd-export', version: 1, createdAt: new Date(t).toISOString(), daemonVersion: '0.1.0' })];
    for (let i = 0; i < 1500; i++) lines.push(JSON.stringify({ type: 'fact', agentId: 'cut', id: makeUlid(t + i, i), content: `cut off fact ${i}`, createdAt: new Date(t + i).toISOString() }));
    const file = `${lines.join('\n')}\n`;
    const facts = async () => (await c.call(AgentList, {})).agents.find((a) => a.agentId === 'cut')?.facts ?? 0;
    // The whole file but its end: the first 1,000 records are stored (seen from the daemon), the rest wait for a batch to fill.
    const req = httpRequest({ host: '127.0.0.1', port: ui.port, method: 'POST', path: '/api/import', headers: { host: ui.host, ...auth } });
    req.on('error', () => {});
    req.write(file.slice(0, file.length - 10));
    await waitFor(async () => (await facts()) === 1000, 20_000, 'the first batch to be stored');
    req.destroy();
    // Importing the whole file again: the records of the batch in waiting were never stored, the stored ones are skipped.
    const again = await ask(ui, { method: 'POST', path: '/api/import', headers: auth, body: file });
    assert.equal(again.status, 200);
    assert.deepEqual(JSON.parse(again.body).result, { imported: 500, skipped: 1000, rejected: [] });
    assert.equal(await facts(), 1500);
    assert.equal(await ui.stop(), 0);
  });

  it('while the daemon is down a call is 503 with its reason, and the next call after it is back succeeds', async () => {
    const own = await startDaemon({ logLevel: 'error' });
    const ui = await startUi(own.socket);
    const headers = { authorization: `Bearer ${await openSession(ui)}`, origin: ui.origin, 'content-type': 'application/json' };
    const body = JSON.stringify({ method: 'agent.list', params: {} });
    assert.equal((await ask(ui, { method: 'POST', path: '/api/call', headers, body })).status, 200);
    await own.stop();
    const down = await ask(ui, { method: 'POST', path: '/api/call', headers, body });
    assert.equal(down.status, 503);
    assert.match(JSON.parse(down.body).error.code, /^MEMORYD_(UNAVAILABLE|CONNECTION_LOST)$/);
    const back = await startDaemon({ logLevel: 'error', socket: own.socket, dataDir: own.dataDir });
    const up = await ask(ui, { method: 'POST', path: '/api/call', headers, body });
    assert.equal(up.status, 200);
    assert.equal(await ui.stop(), 0);
    await back.stop();
  });

  it('opens the browser on a private file that leads to the address, never with the token in a command line', async () => {
    const dir = tempDir('ui-open-');
    const record = join(dir, 'opened');
    const fake = join(dir, 'bin');
    const runtime = join(dir, 'run');
    mkdirSync(fake);
    mkdirSync(runtime, { mode: 0o700 });
    // The fake opener keeps what it was given: its arguments, the file's mode and its text.
    writeFileSync(join(fake, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${record}.args\nstat -c %a "$1" > ${record}.mode\ncat "$1" > ${record}.html\n`, { mode: 0o755 });
    const argv = [process.execPath, MEMORYCTL_BIN, 'ui', '--socket', daemon.socket, '--no-autostart'];
    const opened = await spawnUi(argv, { env: cleanEnv({ PATH: `${fake}:${process.env['PATH'] ?? ''}`, XDG_RUNTIME_DIR: runtime }) });
    await waitFor(() => existsSync(`${record}.html`) && readFileSync(`${record}.html`, 'utf8').includes('</p>'), 10_000, 'xdg-open to be run');
    await waitFor(() => opened.stderr().includes('opened your browser'), 10_000, 'the sentence about the browser');
    assert.match(opened.stderr(), /opened your browser; if it shows an error, open the address above/);
    const args = readFileSync(`${record}.args`, 'utf8');
    assert.doesNotMatch(args, new RegExp(opened.token), 'the token is not in the opener\'s arguments');
    assert.match(args, new RegExp(`^${runtime}/memoryd-ui-[^/]+/open\\.html\n$`));
    assert.equal(readFileSync(`${record}.mode`, 'utf8').trim(), '600');
    assert.match(readFileSync(`${record}.html`, 'utf8'), new RegExp(`<meta http-equiv="refresh" content="0;url=${opened.url.replace(/[.]/g, '\\.')}">`));
    assert.equal(await opened.stop(), 0);
    assert.deepEqual(readdirSync(runtime), [], 'the file is removed when the page stops');
    // An opener that fails, and none at all: the page still serves, and stderr says to open the address by hand (without repeating it).
    writeFileSync(join(fake, 'xdg-open'), '#!/bin/sh\nexit 4\n', { mode: 0o755 });
    const failing = await spawnUi(argv, { env: cleanEnv({ PATH: `${fake}:${process.env['PATH'] ?? ''}`, XDG_RUNTIME_DIR: runtime }) });
    await waitFor(() => failing.stderr().includes('could not open a browser'), 10_000, 'the sentence about the opener');
    assert.match(failing.stderr(), /could not open a browser \(xdg-open exited with 4\): open the address above/);
    assert.equal(await failing.stop(), 0);
    const lonely = await spawnUi(argv, { env: cleanEnv({ PATH: join(dir, 'nothing'), XDG_RUNTIME_DIR: runtime }) });
    await waitFor(() => lonely.stderr().includes('could not open a browser'), 10_000, 'the sentence about the browser');
    assert.match(lonely.stderr(), /could not open a browser \(xdg-open is not installed\): open the address above/);
    assert.doesNotMatch(lonely.stderr(), new RegExp(lonely.token));
    await openSession(lonely);
    assert.equal(await lonely.stop(), 0);
  });

  it('--loopback-ip serves at http://127.0.0.1:PORT, and takes no other Host', async () => {
    const ui = await startUi(daemon.socket, ['--loopback-ip']);
    assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    await openSession(ui);
    assert.equal((await ask(ui, { headers: { host: `localhost:${ui.port}` } })).status, 421);
    assert.equal(await ui.stop(), 0);
  });
});
