// Issue 12: private by default, and start-up errors that name the root
// cause. The daemon runs with umask 077, creates 0700 dirs and 0600 files,
// and tightens an existing data dir or store that others can read (with a
// warning naming the old mode). A start that fails prints one line on
// stderr naming the innermost cause, with no code said twice.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, after, describe, it } from 'node:test';
import { Level } from 'level';
import { MemoryAdd } from '@memoryd/protocol';
import { cleanupAll, fillDisk, mountTmpfs, spawnDaemon, startDaemon, tempDir } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';
import { filesEnding } from './helpers/store-files.js';

after(cleanupAll);

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** Every file and dir under `dir` (itself included) with its mode. */
function modes(dir: string): Array<[string, number, boolean]> {
  const out: Array<[string, number, boolean]> = [[dir, mode(dir), true]];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...modes(path));
    else out.push([path, mode(path), false]);
  }
  return out;
}

function assertPrivate(dir: string): void {
  for (const [path, m, isDir] of modes(dir)) assert.equal(m, isDir ? 0o700 : 0o600, `${path} is 0${m.toString(8)}`);
}

/** A start that must fail: its one line. */
async function failedStart(dataDir: string): Promise<string> {
  const d = await spawnDaemon({ dataDir, wait: 'exit', timeoutMs: 10_000 });
  assert.deepEqual(d.exit(), { code: 1, signal: null }, d.stderr());
  const line = d.lastStderrLine();
  assert.match(line, /^memoryd: cannot start: /);
  assert.doesNotMatch(line, /\b([A-Z_]{4,}): \1\b/, 'no code said twice');
  return line;
}

describe('private by default', () => {
  it('creates the data dir, its parents and the store 0700, and every file 0600', async () => {
    const dataDir = join(tempDir(), 'a', 'b', 'data');
    const d = await startDaemon({ dataDir });
    const c = await connect(d.socket);
    for (let i = 0; i < 20; i++) await c.ok(MemoryAdd, { agentId: 'p', content: `private fact ${i}` });
    c.socket.destroy();
    await d.stop();
    assert.equal(mode(join(dataDir, '..', '..')), 0o700, 'a parent the daemon made');
    assertPrivate(dataDir);
  });

  it('tightens a data dir and store that others can read, saying what the mode was', async () => {
    const dataDir = join(tempDir(), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    // A store made by an earlier release, under a umask of 022.
    const db = new Level(join(dataDir, 'store'));
    await db.open();
    await db.put('!meta!layout', '1');
    await db.close();
    chmodSync(join(dataDir, 'store'), 0o755);
    for (const name of readdirSync(join(dataDir, 'store'))) chmodSync(join(dataDir, 'store', name), 0o644);

    const d = await startDaemon({ dataDir });
    await d.stop();
    assert.match(d.stderr(), /"msg":"data dir was readable by others; tightened to 0700".*"oldMode":"0755"/);
    assert.match(d.stderr(), /"msg":"store dir was readable by others; tightened to 0700".*"oldMode":"0755"/);
    assert.match(d.stderr(), /"msg":"store files were readable by others; tightened to 0600".*"oldMode":"0644"/);
    assertPrivate(dataDir);
  });
});

describe('start-up errors name the root cause', () => {
  it('a data dir under a file: ENOTDIR, once', async () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, 'x');
    const line = await failedStart(join(file, 'data'));
    assert.match(line, /ENOTDIR: not a directory, mkdir '.*file\/data'/);
  });

  it('a data dir under one that takes no new entries (/proc): fails within 10 s, naming the directory', async () => {
    // Node 20's recursive mkdir never returns for this path: the daemon hung instead of failing.
    const started = Date.now();
    const line = await failedStart(`/proc/memoryd-test-${process.pid}/data`);
    assert.ok(Date.now() - started < 10_000, `failed after ${Date.now() - started} ms`);
    assert.match(line, /cannot create data dir \/proc\/memoryd-test-\d+\/data: ENOENT: no such file or directory, mkdir '\/proc\/memoryd-test-\d+'/);
  });

  it('a read-only file system: EROFS with the path', async (t: TestContext) => {
    const fs = mountTmpfs(1, { readOnly: true });
    if ('skip' in fs) return t.skip(fs.skip);
    const line = await failedStart(join(fs.dir, 'data'));
    assert.match(line, /EROFS: read-only file system, mkdir '.*\/data'/);
  });

  it('a full disk: No space left on device', async (t: TestContext) => {
    const fs = mountTmpfs(4);
    if ('skip' in fs) return t.skip(fs.skip);
    mkdirSync(join(fs.dir, 'data', 'store'), { recursive: true });
    fillDisk(fs.dir);
    const line = await failedStart(join(fs.dir, 'data'));
    assert.match(line, /No space left on device/);
  });

  it('a missing table: names the file and memoryd --repair', async () => {
    const d = await startDaemon();
    const c = await connect(d.socket);
    for (let i = 0; i < 30; i++) await c.ok(MemoryAdd, { agentId: 't', content: `fact ${i}` });
    c.socket.destroy();
    await d.stop();
    await (await startDaemon({ socket: d.socket, dataDir: d.dataDir })).stop(); // the log becomes a table
    const [table] = filesEnding(d.dataDir, '.ldb');
    rmSync(table!);
    const line = await failedStart(d.dataDir);
    assert.match(line, /\d+\.ldb: missing.*memoryd --repair/);
  });
});

describe('a brand-new data dir', () => {
  it('starts without an upgrade\'s "recounting" lines at info', async () => {
    const dir = tempDir();
    const d = await startDaemon({ socket: join(dir, 'd.sock'), dataDir: join(dir, 'new'), logLevel: 'info' });
    await d.stop();
    const msgs = d.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { msg: string }).msg);
    assert.ok(msgs.includes('listening'), d.stderr());
    assert.deepEqual(msgs.filter((m) => /recount/.test(m)), [], d.stderr());
  });
});
