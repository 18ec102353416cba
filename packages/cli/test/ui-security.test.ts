import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { AgentList, DaemonStatus, Limits, MemoryAdd } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, type DaemonHandle, MEMORYCTL_BIN, makeUlid, startDaemon, tempDir, trackCloser, waitFor } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';
import { spawnUi, startUi, type UiProcess } from './helpers/ui.js';

// The page's security rules (docs/operations.md, "Web page"), each broken
// on purpose with raw HTTP requests: no token, a wrong or used token, a
// foreign Host, a foreign or missing Origin, a body over the bound, a
// daemon method the page may not call; and what must never happen: the
// token in a log, a CORS header, a TCP listener in the daemon.

after(cleanupAll);

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Ask {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sends the body in pieces without a Content-Length (chunked), as a streaming client would. */
  chunked?: boolean;
}

/** One raw HTTP request to the page's port: any Host, any header, bounded. */
function ask(port: number, { method = 'GET', path = '/', headers = {}, body, chunked = false }: Ask): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} got no answer in 20 s`)));
    // The server may answer (413) and close before the whole body is sent.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (body !== undefined && chunked) {
      const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
      for (let at = 0; at < buf.length; at += 1 << 20) req.write(buf.subarray(at, at + (1 << 20)));
    } else if (body !== undefined) {
      req.setHeader('content-length', Buffer.byteLength(body));
      req.write(body);
    }
    req.end();
  });
}

describe('memoryctl ui: every request is checked', () => {
  let daemon: DaemonHandle;
  let ui: UiProcess;
  let client: DaemonClient;
  /** `name=value` of the session cookie. */
  let cookie: string;

  before(async () => {
    daemon = await startDaemon({ logLevel: 'error' });
    client = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => client.close());
    await client.call(MemoryAdd, { agentId: 'alice', content: 'alice keeps her keys in the blue bowl' });
    ui = await startUi(daemon.socket);
    trackCloser(async () => void (await ui.stop()));
  });

  it('a wrong token, then no cookie, get 401 and neither page nor data', async () => {
    const wrong = await ask(ui.port, { path: '/?token=not-the-token' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    for (const path of ['/', '/app.js', '/api/export']) {
      const none = await ask(ui.port, { path });
      assert.equal(none.status, 401, path);
      assert.doesNotMatch(none.body, /alice|memoryd-export/);
    }
    const call = await ask(ui.port, { method: 'POST', path: '/api/call', headers: { origin: ui.origin, 'content-type': 'application/json' }, body: JSON.stringify({ method: 'agent.list', params: {} }) });
    assert.equal(call.status, 401);
    assert.doesNotMatch(call.body, /alice/);
  });

  it('the printed token is swapped once for an HttpOnly SameSite=Strict cookie, and taken out of the address', async () => {
    const first = await ask(ui.port, { path: `/?token=${ui.token}` });
    assert.equal(first.status, 303);
    assert.equal(first.headers.location, '/');
    const set = first.headers['set-cookie']?.[0] ?? '';
    assert.match(set, /; HttpOnly/);
    assert.match(set, /; SameSite=Strict/);
    assert.doesNotMatch(set, new RegExp(ui.token));
    cookie = set.split(';')[0]!;
    const again = await ask(ui.port, { path: `/?token=${ui.token}` });
    assert.equal(again.status, 401, 'the token works once');
    const page = await ask(ui.port, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.body, /<script type="module" src="\/app.js">/);
    const forged = await ask(ui.port, { headers: { cookie: cookie.replace(/=.*/, '=forged') } });
    assert.equal(forged.status, 401);
  });

  it('a Host other than 127.0.0.1:PORT is refused (DNS rebinding), even with the cookie', async () => {
    for (const host of [`evil.example:${ui.port}`, `localhost:${ui.port}`, '127.0.0.1', `127.0.0.1:${ui.port + 1}`]) {
      const r = await ask(ui.port, { headers: { host, cookie } });
      assert.equal(r.status, 421, host);
      assert.doesNotMatch(r.body, /alice/);
    }
  });

  it('a change needs the page\'s own Origin: a foreign one, another port\'s, or none is 403 and changes nothing', async () => {
    const add = JSON.stringify({ method: 'memory.add', params: { agentId: 'mallory', content: 'planted' } });
    for (const origin of ['http://evil.example', `http://127.0.0.1:${ui.port + 1}`, 'null', undefined]) {
      const headers: Record<string, string> = { cookie, 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) };
      const r = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: add });
      assert.equal(r.status, 403, String(origin));
      const imp = await ask(ui.port, { method: 'POST', path: '/api/import', headers, body: '{"type":"memoryd-export","version":1}\n' });
      assert.equal(imp.status, 403, `import from ${String(origin)}`);
    }
    const agents = await client.call(AgentList, {});
    assert.deepEqual(agents.agents.map((a) => a.agentId), ['alice']);
    const ok = await ask(ui.port, { method: 'POST', path: '/api/call', headers: { cookie, origin: ui.origin, 'content-type': 'application/json' }, body: JSON.stringify({ method: 'agent.list', params: {} }) });
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { result: { agents: [{ agentId: 'alice', facts: 1, checkpoints: 0 }] } });
  });

  it('no CORS: a preflight from another origin is refused and no answer carries Access-Control-*', async () => {
    const pre = await ask(ui.port, { method: 'OPTIONS', path: '/api/call', headers: { cookie, origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(pre.status, 403);
    for (const r of [pre, await ask(ui.port, { headers: { cookie, origin: 'http://evil.example' } })]) {
      assert.deepEqual(Object.keys(r.headers).filter((h) => h.startsWith('access-control-')), []);
    }
  });

  it('every answer carries the policy: no inline script, no other origin, no frame', async () => {
    for (const r of [await ask(ui.port, { headers: { cookie } }), await ask(ui.port, { path: '/app.js', headers: { cookie } }), await ask(ui.port, {})]) {
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
    }
  });

  it('a body over the daemon\'s line bound is 413, whether declared or streamed, and a file line over it too', async () => {
    const headers = { cookie, origin: ui.origin, 'content-type': 'application/json' };
    const big = Buffer.alloc(Limits.maxLineBytes + 1, 0x20);
    const declared = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: big });
    assert.equal(declared.status, 413);
    const streamed = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: big, chunked: true });
    assert.equal(streamed.status, 413);
    const line = Buffer.concat([Buffer.from('{"type":"memoryd-export","version":1,"createdAt":"2026-12-07T00:00:00.000Z","daemonVersion":"0"}\n'), big]);
    const file = await ask(ui.port, { method: 'POST', path: '/api/import', headers: { cookie, origin: ui.origin }, body: line, chunked: true });
    assert.equal(file.status, 413);
    assert.match(JSON.parse(file.body).error.message, /line/);
    // The server still serves.
    assert.equal((await ask(ui.port, { headers: { cookie } })).status, 200);
  });

  it('only the page\'s methods pass: shutdown, admin and unknown methods are 400 and never reach the daemon', async () => {
    const headers = { cookie, origin: ui.origin, 'content-type': 'application/json' };
    for (const method of ['daemon.shutdown', 'admin.reembed', 'admin.import', 'checkpoint.save', 'no.such', 42]) {
      const r = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: JSON.stringify({ method, params: {} }) });
      assert.equal(r.status, 400, String(method));
    }
    const notJson = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: '{' });
    assert.equal(notJson.status, 400);
    const status = await client.call(DaemonStatus, {});
    assert.equal(status.pid, daemon.pid);
    const badParams = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body: JSON.stringify({ method: 'memory.list', params: { agentId: '' } }) });
    assert.equal(badParams.status, 400);
    assert.equal(JSON.parse(badParams.body).error.code, -32602);
  });

  it('the token is printed once, on stdout, and never logged; the session never appears', () => {
    assert.equal(ui.stdout().split(ui.token).length - 1, 1);
    assert.doesNotMatch(ui.stderr(), new RegExp(ui.token));
    assert.doesNotMatch(ui.stdout() + ui.stderr(), new RegExp(cookie.split('=')[1]!));
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

  it('an upload cut off imports whole batches only, and the same file again completes it', async () => {
    const c = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => c.close());
    const ui = await startUi(daemon.socket);
    const first = await ask(ui.port, { path: `/?token=${ui.token}` });
    const cookie = first.headers['set-cookie']![0]!.split(';')[0]!;
    const t = Date.parse('2026-03-01T00:00:00.000Z');
    const lines = [JSON.stringify({ type: 'memoryd-export', version: 1, createdAt: new Date(t).toISOString(), daemonVersion: '0.1.0' })];
    for (let i = 0; i < 1500; i++) lines.push(JSON.stringify({ type: 'fact', agentId: 'cut', id: makeUlid(t + i, i), content: `cut off fact ${i}`, createdAt: new Date(t + i).toISOString() }));
    const file = `${lines.join('\n')}\n`;
    // Half the file, then the connection dies.
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: ui.port, method: 'POST', path: '/api/import', headers: { host: `127.0.0.1:${ui.port}`, cookie, origin: ui.origin } });
      req.on('error', () => resolve());
      req.write(file.slice(0, Math.floor(file.length * 0.8)), () => setImmediate(() => (req.destroy(), resolve())));
    });
    const agents = async () => (await c.call(AgentList, {})).agents.find((a) => a.agentId === 'cut')?.facts ?? 0;
    // The batch in flight when the upload died is stored whole or not at all.
    await waitFor(async () => [0, 1000].includes(await agents()), 10_000, 'whole batches only');
    const again = await ask(ui.port, { method: 'POST', path: '/api/import', headers: { cookie, origin: ui.origin }, body: file });
    assert.equal(again.status, 200);
    const outcome = JSON.parse(again.body).result as { imported: number; skipped: number; rejected: unknown[] };
    assert.equal(outcome.imported + outcome.skipped, 1500);
    assert.deepEqual(outcome.rejected, []);
    assert.equal(await agents(), 1500);
    assert.equal(await ui.stop(), 0);
  });

  it('while the daemon is down a call is 503 with its reason, and the next call after it is back succeeds', async () => {
    const own = await startDaemon({ logLevel: 'error' });
    const ui = await startUi(own.socket);
    const first = await ask(ui.port, { path: `/?token=${ui.token}` });
    const headers = { cookie: first.headers['set-cookie']![0]!.split(';')[0]!, origin: ui.origin, 'content-type': 'application/json' };
    const body = JSON.stringify({ method: 'agent.list', params: {} });
    assert.equal((await ask(ui.port, { method: 'POST', path: '/api/call', headers, body })).status, 200);
    await own.stop();
    const down = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body });
    assert.equal(down.status, 503);
    assert.match(JSON.parse(down.body).error.code, /^MEMORYD_(UNAVAILABLE|CONNECTION_LOST)$/);
    const back = await startDaemon({ logLevel: 'error', socket: own.socket, dataDir: own.dataDir });
    const up = await ask(ui.port, { method: 'POST', path: '/api/call', headers, body });
    assert.equal(up.status, 200);
    assert.equal(await ui.stop(), 0);
    await back.stop();
  });

  it('opens the address with xdg-open unless --no-open, and says so when it cannot', async () => {
    const dir = tempDir('ui-open-');
    const record = join(dir, 'opened');
    const fake = join(dir, 'bin');
    mkdirSync(fake);
    writeFileSync(join(fake, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${record}\n`, { mode: 0o755 });
    const argv = [process.execPath, MEMORYCTL_BIN, 'ui', '--socket', daemon.socket, '--no-autostart'];
    const opened = await spawnUi(argv, { env: cleanEnv({ PATH: `${fake}:${process.env['PATH'] ?? ''}` }) });
    await waitFor(() => existsSync(record) && readFileSync(record, 'utf8').includes('\n'), 10_000, 'xdg-open to be run');
    assert.equal(readFileSync(record, 'utf8'), `${opened.url}\n`);
    assert.equal(await opened.stop(), 0);
    // No xdg-open on the PATH: the page still serves, and stderr says to open the address by hand (without repeating it).
    const lonely = await spawnUi(argv, { env: cleanEnv({ PATH: fake.replace(/bin$/, 'nothing') }) });
    await waitFor(() => lonely.stderr().includes('could not open a browser'), 10_000, 'the sentence about the browser');
    assert.match(lonely.stderr(), /could not open a browser \(xdg-open is not installed\): open the address above/);
    assert.doesNotMatch(lonely.stderr(), new RegExp(lonely.token));
    assert.equal((await ask(lonely.port, { path: `/?token=${lonely.token}` })).status, 303);
    assert.equal(await lonely.stop(), 0);
  });
});
