// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { cleanupAll, type DaemonHandle, tempDir, withTimeout } from '@memoryd/test-support';
import { SHIM_BIN, startDaemon } from './helpers/daemon.js';
import { assertFailure, assertSuccess, inProcess, overStdio, type Session } from './helpers/mcp.js';
import { INITIALIZE, runShim, spawnShim } from './helpers/raw-shim.js';

// The process contract of the built bin: MCP over stdio through the SDK's
// real StdioClientTransport, flags, exit codes, and stdout purity.

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('the memoryd-mcp bin', () => {
  let daemon: DaemonHandle;
  let s: Session | undefined;
  before(async () => {
    daemon = await startDaemon();
  });
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  after(async () => {
    await daemon?.stop();
    await cleanupAll();
  });

  test('is executable and starts with a node shebang', () => {
    assert.match(readFileSync(SHIM_BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    assert.notEqual(statSync(SHIM_BIN).mode & 0o111, 0, 'bin/memoryd-mcp.js has an execute bit');
  });

  test('lists the same tools as the in-process server, without a daemon, and creates no socket', async () => {
    const socket = join(tempDir(), 'absent.sock');
    s = await overStdio(['--socket', socket, '--no-autostart']);
    const local = await inProcess({ socket });
    assert.deepEqual(s.tools, local.tools);
    await local.close();
    const info = s.client.getServerVersion();
    assert.deepEqual(info, { name: 'memoryd', version: VERSION });
    assert.deepEqual(s.client.getServerCapabilities()?.tools, {});
    assert.equal(existsSync(socket), false);
  });

  test('serves every tool against a real daemon', async () => {
    s = await overStdio(['--socket', daemon.socket, '--no-autostart']);
    const added = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: 'io', content: 'stdio works', tags: ['t'] }));
    const factId = added.structured['fact_id'] as string;
    assert.equal(added.text, `Stored fact ${factId} for agent "io".`);
    const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'io', query: 'stdio' }));
    assert.equal(found.text, `Found 1 fact for agent "io" matching "stdio":\n1. [${factId}] stdio works`);
    const saved = assertSuccess(s, 'checkpoint_save', await s.call('checkpoint_save', { agent_id: 'io', state: { step: 1 }, message_count: 7 }));
    const resumed = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: 'io' }));
    assert.equal(
      resumed.text,
      [`Checkpoint ${saved.structured['checkpoint_id']} for agent "io" (created ${saved.structured['created_at']})`, 'Messages: 7', 'State:', '{\n  "step": 1\n}'].join('\n'),
    );
    const reflected = assertSuccess(s, 'memory_reflect', await s.call('memory_reflect', { agent_id: 'io', action: 'delete', fact_id: factId }));
    assert.equal(reflected.text, `Applied delete to fact ${factId} for agent "io".`);
    assert.equal(assertFailure(await s.call('memory_add', { agent_id: 'io' })), 'invalid arguments: content: is required');
  });

  test('--resume-on-missing and MEMORYD_RESUME_ON_MISSING set the default on_missing; the flag wins; a call overrides', async () => {
    const cases: Array<[string[], Record<string, string>, 'error' | 'empty']> = [
      [[], {}, 'error'],
      [['--resume-on-missing', 'empty'], {}, 'empty'],
      [['--resume-on-missing=error'], {}, 'error'],
      [[], { MEMORYD_RESUME_ON_MISSING: 'empty' }, 'empty'],
      [['--resume-on-missing', 'error'], { MEMORYD_RESUME_ON_MISSING: 'empty' }, 'error'],
    ];
    for (const [flags, env, mode] of cases) {
      const label = `${flags.join(' ')} ${JSON.stringify(env)}`;
      s = await overStdio(['--socket', daemon.socket, '--no-autostart', ...flags], env);
      const r = await s.call('checkpoint_resume', { agent_id: 'missing' });
      if (mode === 'error') assert.equal(assertFailure(r), 'No checkpoint found for agent "missing".', label);
      else assert.deepEqual(assertSuccess(s, 'checkpoint_resume', r).structured, { agent_id: 'missing', found: false }, label);
      const other = mode === 'error' ? 'empty' : 'error';
      const o = await s.call('checkpoint_resume', { agent_id: 'missing', on_missing: other });
      assert.equal(o.isError === true, other === 'error', `${label}: the call's on_missing wins`);
      await s.close();
      s = undefined;
    }
  });

  test('closing stdin with calls still in flight answers them all before exiting', async () => {
    // A script may write its requests and close stdin at once: every call
    // it sent is answered (and stored) before the shim leaves.
    const shim = spawnShim(['--socket', daemon.socket, '--no-autostart']);
    shim.send(INITIALIZE);
    await shim.response(1);
    shim.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const ids = Array.from({ length: 20 }, (_, i) => 10 + i);
    for (const id of ids) shim.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'memory_add', arguments: { agent_id: 'drain', content: `drained fact number ${id}` } } });
    shim.endInput();
    const exit = await withTimeout(shim.exited, 15_000, 'the shim to exit after stdin closed');
    assert.deepEqual(exit, { code: 0, signal: null });
    const answers = shim
      .stdout()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean } });
    assert.deepEqual(answers.map((a) => a.id).sort((a, b) => a - b), [1, ...ids]);
    for (const a of answers) assert.equal(a.result?.isError, undefined, JSON.stringify(a));
    s = await overStdio(['--socket', daemon.socket, '--no-autostart']);
    const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: 'drain', query: 'drained', limit: 50 }));
    assert.equal((found.structured['facts'] as unknown[]).length, ids.length);
  });

  test('stdout carries only MCP messages, and closing stdin exits 0 with the daemon connection open', async () => {
    const shim = spawnShim(['--socket', daemon.socket, '--no-autostart']);
    shim.send(INITIALIZE);
    await shim.response(1);
    shim.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    shim.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    shim.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory_add', arguments: { agent_id: 'raw', content: 'x' } } });
    shim.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'memory_add', arguments: {} } });
    await shim.response(2);
    const added = await shim.response(3);
    assert.equal((added['result'] as { isError?: boolean }).isError, undefined);
    await shim.response(4);
    shim.endInput();
    const exit = await withTimeout(shim.exited, 5000, 'the shim to exit after stdin closed');
    assert.deepEqual(exit, { code: 0, signal: null });
    const lines = shim.stdout().split('\n');
    assert.equal(lines.pop(), '', 'stdout ends with a newline');
    for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc, '2.0', line);
    // One answer per request (in any order: the slow call may finish last).
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { id: number }).id).sort(), [1, 2, 3, 4]);
  });

  test('--help lists every flag and environment variable; --version prints the package version', async () => {
    const help = await runShim(['--help']);
    assert.equal(help.code, 0);
    for (const word of ['--socket', '--data-dir', '--no-autostart', '--resume-on-missing', '--help', '--version', 'MEMORYD_SOCKET', 'MEMORYD_DATA_DIR', 'MEMORYD_NO_AUTOSTART=1', 'MEMORYD_RESUME_ON_MISSING', 'MEMORYD_BIN']) {
      assert.ok(help.stdout.includes(word), `--help mentions ${word}`);
    }
    const version = await runShim(['--version']);
    assert.deepEqual(version, { code: 0, stdout: `memoryd-mcp ${VERSION}\n`, stderr: '' });
  });

  test('a bad flag or value exits 2 with a message on stderr and nothing on stdout', async () => {
    const cases: Array<[string[], Record<string, string>]> = [
      [['--bogus'], {}],
      [['extra'], {}],
      [['--socket'], {}],
      [['--resume-on-missing', 'maybe'], {}],
      [[], { MEMORYD_RESUME_ON_MISSING: 'never' }],
    ];
    for (const [args, env] of cases) {
      const r = await runShim(args, env);
      const label = `${args.join(' ')} ${JSON.stringify(env)}`;
      assert.equal(r.code, 2, label);
      assert.equal(r.stdout, '', label);
      assert.match(r.stderr, /^memoryd-mcp: .+/, label);
    }
  });
});
