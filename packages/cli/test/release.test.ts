import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, cleanupAll, daemonsUnder, tempDir, trackPid, untrackPid, waitFor, withTimeout } from '@memoryd/test-support';
import { watchedPage } from './helpers/browser.js';
import { ask, findChromium, spawnUi } from './helpers/ui.js';

// The installable release (issue 14): `npm run pack`'s tarball installed
// with `npm install -g --prefix` into a temp prefix, and the three bins run
// from there, from outside the checkout, with none of the workspace on any
// path. The npm cache that `npm ci` filled serves level and classic-level.

after(cleanupAll);

const run = promisify(execFile);
const PACK = fileURLToPath(new URL('../../../scripts/pack.mjs', import.meta.url));
/** The checkout this test runs in, which built the release: no file the release ships may name it. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

interface Installed {
  prefix: string;
  /** The release's own folder in the prefix. */
  pkg: string;
  bin(name: string): string;
  env: Record<string, string>;
  root: string;
  runtime: string;
}

let installed: Installed;

before(async () => {
  const root = realpathSync(tempDir());
  const { stdout } = await run(process.execPath, [PACK, '--out', join(root, 'pack')], { timeout: 120_000 });
  const tarball = stdout.trim();
  assert.match(tarball, /memoryd-\d+\.\d+\.\d+\.tgz$/);
  const prefix = join(root, 'prefix');
  await run('npm', ['install', '--global', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    timeout: 180_000,
    env: cleanEnv(),
  });
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  installed = {
    prefix,
    pkg: join(prefix, 'lib', 'node_modules', 'memoryd'),
    bin: (name) => join(prefix, 'bin', name),
    // No NODE_PATH, no workspace: only what the prefix holds.
    env: cleanEnv({ HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: undefined, XDG_DATA_HOME: undefined, NODE_PATH: undefined, GLIBC_TUNABLES: undefined }),
    root,
    runtime,
  };
});

/** Runs an installed bin directly (its shebang finds node), from `/`. */
async function bin(name: string, args: string[]): Promise<string> {
  const { stdout } = await run(installed.bin(name), args, { env: installed.env, cwd: '/', timeout: 30_000 });
  return stdout;
}

/** One MCP session with the installed shim over raw stdio: initialize, then `calls`, answers in order. */
async function shimSession(calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<unknown[]> {
  const child = spawn(installed.bin('memoryd-mcp'), [], { env: installed.env, cwd: '/', stdio: ['pipe', 'pipe', 'pipe'] });
  trackPid(child.pid!);
  const answers = new Map<number, unknown>();
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl)) as { id?: number; result?: unknown; error?: unknown };
      buf = buf.slice(nl + 1);
      if (msg.id !== undefined) answers.set(msg.id, msg.result ?? msg.error);
    }
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const answer = async (id: number) => {
    await waitFor(() => answers.has(id), 20_000, `the installed shim to answer request ${id}`);
    return answers.get(id);
  };
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'release-test', version: '0' } } });
  await answer(0);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const results: unknown[] = [];
  for (const [i, call] of calls.entries()) {
    send({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: call });
    results.push(await answer(i + 1));
  }
  child.stdin.end();
  await withTimeout(new Promise((resolve) => child.once('close', resolve)), 10_000, 'the installed shim to exit on EOF');
  untrackPid(child.pid!);
  return results;
}

describe('the release tarball, installed with npm install -g --prefix', () => {
  it('puts the three bins on the prefix and carries only the daemon\'s native store besides', async () => {
    assert.deepEqual(readdirSync(join(installed.prefix, 'bin')).sort(), ['memoryctl', 'memoryd', 'memoryd-mcp']);
    for (const name of ['memoryd', 'memoryd-mcp', 'memoryctl']) assert.match(await bin(name, ['--version']), new RegExp(`^${name} \\d+\\.\\d+\\.\\d+\\n$`));
    const deps = readdirSync(join(installed.pkg, 'node_modules'));
    assert.ok(deps.includes('level') && deps.includes('classic-level'));
    assert.ok(!deps.some((d) => d.startsWith('@memoryd') || d === '@modelcontextprotocol' || d === '@sinclair'), `bundled packages were installed: ${deps.join(', ')}`);
  });

  it('memoryctl and the shim autostart the release\'s own memoryd and share it', async () => {
    const added = JSON.parse(await bin('memoryctl', ['add', 'release', 'installed from the packed tarball', '--json'])) as { factId: string };
    const daemons = daemonsUnder(installed.runtime);
    assert.equal(daemons.length, 1);
    const cmd = readFileSync(`/proc/${daemons[0]}/cmdline`, 'utf8').split('\0');
    assert.deepEqual(cmd.slice(1, 2), [join(installed.pkg, 'bin', 'memoryd.js')], 'the daemon of this release, from the prefix, as plain node (ADR 0029)');
    const environ = readFileSync(`/proc/${daemons[0]}/environ`, 'utf8').split('\0');
    assert.deepEqual(environ.filter((v) => v.startsWith('GLIBC_TUNABLES=')), [], 'autostarted with no glibc tunable (ADR 0029)');
    trackPid(daemons[0]!);

    const [search] = (await shimSession([{ name: 'memory_search', arguments: { agent_id: 'release', query: 'packed tarball' } }])) as Array<{
      structuredContent: { facts: Array<{ id: string }> };
    }>;
    assert.deepEqual(search!.structuredContent.facts.map((f) => f.id), [added.factId]);
    assert.deepEqual(daemonsUnder(installed.runtime), daemons, 'the shim started no second daemon');
    await bin('memoryctl', ['stop']);
    await waitFor(() => daemonsUnder(installed.runtime).length === 0, 10_000, 'the daemon to stop');
  });

  it('memoryctl ui --no-open serves the page and its files from the installed package', async () => {
    const ui = await spawnUi([installed.bin('memoryctl'), 'ui', '--no-open'], { env: installed.env, cwd: '/' });
    for (const pid of daemonsUnder(installed.runtime)) trackPid(pid);
    for (const [path, type] of [['/', 'text/html'], ['/app.js', 'text/javascript'], ['/app.css', 'text/css']] as const) {
      // To 127.0.0.1 with the page's Host: this machine's resolver may not know names under localhost, which browsers resolve themselves.
      const r = await ask(ui, { path });
      assert.equal(r.status, 200, path);
      assert.match(String(r.headers['content-type']), new RegExp(type));
      const body = r.body;
      assert.ok(body.length > 300, `${path} is the page's file, not a stub`);
      if (path === '/') assert.match(body, /<script type="module" src="\/app.js">/);
    }
    const chromium = findChromium();
    if (chromium !== undefined) {
      // A second page server (the first token is spent): the installed page, drawn by a browser.
      const drawn = await spawnUi([installed.bin('memoryctl'), 'ui', '--no-open'], { env: installed.env, cwd: '/' });
      const w = await watchedPage(chromium, drawn.origin);
      await w.page.goto(drawn.url);
      await w.page.locator('a.agent:text-is("release")').waitFor();
      assert.deepEqual(w.problems, []);
      await w.browser.close();
      assert.equal(await drawn.stop(), 0);
    }
    assert.equal(await ui.stop(), 0);
    await bin('memoryctl', ['stop']);
    await waitFor(() => daemonsUnder(installed.runtime).length === 0, 10_000, 'the daemon to stop');
  });

  it('a start that fails says one line, with no stack, and its stacks (at debug) name no build checkout path', async () => {
    const dir = tempDir('release-fail-');
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const args = ['--socket', join(dir, 's.sock'), '--data-dir', join(file, 'data')];
    const failed = await run(installed.bin('memoryd'), args, { env: installed.env, cwd: '/', timeout: 30_000 }).then(
      () => assert.fail('a data dir under a file must not start'),
      (err: { code?: number; stderr?: string }) => err,
    );
    assert.equal(failed.code, 1);
    const lines = (failed.stderr ?? '').trimEnd().split('\n');
    assert.equal(lines.length, 2, failed.stderr);
    assert.deepEqual(
      (({ level, msg, code }) => ({ level, msg, code }))(JSON.parse(lines[0]!) as { level: string; msg: string; code: string }),
      { level: 'warn', msg: 'start failed', code: 'MEMORYD_STORAGE' },
    );
    assert.match(lines[1]!, /^memoryd: cannot start: cannot create data dir .*: ENOTDIR/);
    const debug = await run(installed.bin('memoryd'), [...args, '--log-level', 'debug'], { env: installed.env, cwd: '/', timeout: 30_000 }).then(
      () => assert.fail('must not start'),
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    assert.match(debug, /"stack":/, 'the stacks are there at debug');
    assert.ok(!debug.includes(REPO_ROOT), `no path of the checkout that built the release: ${debug}`);
  });

  it('after a SIGKILL, the release\'s memoryd rebuilds an index in its own worker bundle', async () => {
    const added = JSON.parse(await bin('memoryctl', ['add', 'crashed', 'rebuilt by the bundled index worker', '--json'])) as { factId: string };
    const [pid] = daemonsUnder(installed.runtime);
    assert.ok(pid !== undefined, 'memoryctl autostarted a daemon');
    trackPid(pid);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => daemonsUnder(installed.runtime).length === 0, 10_000, 'the killed daemon to go');
    untrackPid(pid);
    // The next daemon finds no image of the agent and rebuilds its index in dist/memoryd-index-worker.mjs.
    const found = JSON.parse(await bin('memoryctl', ['search', 'crashed', 'bundled worker', '--json'])) as Array<{ id: string }>;
    assert.deepEqual(found.map((f) => f.id), [added.factId]);
    // Where an autostarted daemon logs (the client's autostart-log.ts).
    const log = readFileSync(join(installed.env['XDG_STATE_HOME']!, 'memoryd', 'memoryd.log'), 'utf8');
    assert.match(log, /"search indexes opened".*"rebuilding":1/);
    trackPid(daemonsUnder(installed.runtime)[0]!);
    await bin('memoryctl', ['stop']);
    await waitFor(() => daemonsUnder(installed.runtime).length === 0, 10_000, 'the daemon to stop');
  });

  it('service install --dry-run names the prefix\'s memoryd; systemd-analyze accepts the units and the plist parses', async () => {
    const memoryd = join(installed.pkg, 'bin', 'memoryd.js');
    const units = JSON.parse(await bin('memoryctl', ['service', 'install', '--dry-run', '--json', '--target', 'systemd'])) as {
      argv: string[];
      files: Array<{ path: string; content: string }>;
    };
    assert.deepEqual(units.argv.slice(0, 2), [process.execPath, memoryd]);
    assert.ok(units.argv[1]!.startsWith(`${installed.prefix}/`));
    const service = units.files.find((f) => f.path.endsWith('/memoryd.service'))!;
    assert.match(service.content, new RegExp(`^ExecStart=${process.execPath} ${memoryd} `, 'm'));
    if (has('systemd-analyze')) {
      const dir = join(installed.root, 'units');
      mkdirSync(dir);
      const paths = units.files.map((f) => {
        const path = join(dir, f.path.split('/').pop()!);
        writeFileSync(path, f.content);
        return path;
      });
      const verify = spawnSync('systemd-analyze', ['--user', 'verify', ...paths], { env: { ...process.env, XDG_RUNTIME_DIR: installed.runtime }, encoding: 'utf8' });
      assert.equal(verify.status, 0, verify.stderr);
      assert.equal(verify.stderr.trim(), '', 'systemd-analyze warned');
    }

    const agent = JSON.parse(await bin('memoryctl', ['service', 'install', '--dry-run', '--json', '--target', 'launchd'])) as { files: Array<{ path: string; content: string }> };
    const plist = join(installed.root, 'dev.memoryd.plist');
    writeFileSync(plist, agent.files[0]!.content);
    const parsed = JSON.parse(
      spawnSync('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', plist], { encoding: 'utf8' }).stdout,
    ) as { ProgramArguments: string[]; Label: string };
    assert.equal(parsed.Label, 'dev.memoryd');
    assert.deepEqual(parsed.ProgramArguments.slice(0, 2), [process.execPath, memoryd]);
  });
});
