// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// memoryctl against a real daemon (DESIGN.md, memoryctl): every command,
// its human output and its --json document, the exit codes (0 done, 1 the
// daemon's error, 2 usage, 3 no daemon, 4 not found), --help everywhere,
// and autostart like the shim's.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CheckpointSave } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, daemonPaths, DAEMON_BIN, pidsMentioning, startDaemon, tempDir, trackPid } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';
import { DaemonClient } from '@memoryd/client';

after(cleanupAll);

const COMMANDS = ['status', 'agents', 'add', 'search', 'list', 'resume', 'checkpoints', 'embeddings', 'reflect', 'export', 'import', 'backup', 'stop'];

describe('memoryctl against a running daemon', () => {
  let d: DaemonHandle;
  const ctl = (...args: string[]) => memoryctl(['--socket', d.socket, ...args]);
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
  });

  it('--help lists every command and the exit codes; each command has its own --help', async () => {
    const help = await memoryctl(['--help']);
    assert.equal(help.code, 0);
    for (const c of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${c} `, 'm'));
    assert.match(help.stdout, /4 not found/);
    for (const c of COMMANDS) {
      const own = await memoryctl([c, '--help']);
      assert.equal(own.code, 0, `${c} --help`);
      assert.match(own.stdout, new RegExp(`^Usage: memoryctl ${c}`), `${c} --help`);
    }
    assert.match((await memoryctl(['--version'])).stdout, /^memoryctl \d+\.\d+\.\d+/);
  });

  it('add, search, list, agents and status, as tables and as one JSON document', async () => {
    const added = await ctl('add', 'ann', 'The office moved to Lyon', '--tag', 'place');
    assert.equal(added.code, 0, added.stderr);
    const id = /Stored fact (\S+) for agent "ann"/.exec(added.stdout)?.[1];
    assert.ok(id !== undefined, added.stdout);
    assert.match((await ctl('add', 'ann', 'the office moved to lyon')).stdout, new RegExp(`Already stored as fact ${id}`));
    await ctl('add', 'bob', 'Bob takes tea at four');

    const found = await ctl('search', 'ann', 'office');
    assert.match(found.stdout, /^ID +SCORE +CONTENT$/m);
    assert.match(found.stdout, new RegExp(`^${id} +\\d\\.\\d{3} +The office moved to Lyon$`, 'm'));
    const json = JSON.parse((await ctl('--json', 'search', 'ann', 'office')).stdout) as Array<{ id: string; tags: string[] }>;
    assert.equal(json[0]?.id, id);
    assert.deepEqual(json[0]?.tags, ['place']);

    assert.match((await ctl('list', 'ann')).stdout, new RegExp(`^${id} +\\S+ +The office moved to Lyon$`, 'm'));
    assert.deepEqual(JSON.parse((await ctl('list', 'ann', '--json')).stdout).map((f: { id: string }) => f.id), [id]);

    const agents = await ctl('agents');
    assert.match(agents.stdout, /^AGENT +FACTS +CHECKPOINTS$/m);
    assert.match(agents.stdout, /^ann +1 +0$/m);
    assert.deepEqual(JSON.parse((await ctl('agents', '--json')).stdout), [
      { agentId: 'ann', facts: 1, checkpoints: 0 },
      { agentId: 'bob', facts: 1, checkpoints: 0 },
    ]);

    const status = await ctl('status');
    assert.match(status.stdout, new RegExp(`^pid: +${d.pid}$`, 'm'));
    assert.match(status.stdout, /^health: +ok$/m);
    const s = JSON.parse((await ctl('--json', 'status')).stdout) as { pid: number; facts: number; health: string };
    assert.equal(s.pid, d.pid);
    assert.equal(s.facts, 2);
  });

  it('resume and checkpoints; a missing checkpoint exits 4', async () => {
    const client = new DaemonClient({ socket: d.socket, autostart: false });
    const saved = await client.call(CheckpointSave, { agentId: 'cat', state: { step: 3, notes: ['a'] }, messageCount: 7 });
    await client.close();
    const r = await ctl('resume', 'cat');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `Checkpoint ${saved.checkpointId} for agent "cat" (created ${saved.createdAt})\nMessages: 7\nState:\n${JSON.stringify({ step: 3, notes: ['a'] }, null, 2)}\n`);
    assert.deepEqual(JSON.parse((await ctl('--json', 'resume', 'cat', '--checkpoint', saved.checkpointId)).stdout).state, { step: 3, notes: ['a'] });
    assert.match((await ctl('checkpoints', 'cat')).stdout, new RegExp(`^${saved.checkpointId} +${saved.createdAt} +7$`, 'm'));
    const none = await ctl('resume', 'nobody');
    assert.equal(none.code, 4);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /^memoryctl: no checkpoint for agent "nobody"\n$/);
  });

  it('reflect update prints the new version; reflecting a superseded fact exits 4', async () => {
    const id = /Stored fact (\S+)/.exec((await ctl('add', 'dan', 'Standup is at nine')).stdout)![1]!;
    const upd = await ctl('reflect', 'dan', 'update', id, 'Standup is at ten');
    assert.equal(upd.code, 0, upd.stderr);
    const next = /the new version is fact (\S+)\./.exec(upd.stdout)?.[1];
    assert.ok(next !== undefined && next !== id, upd.stdout);
    const again = await ctl('reflect', 'dan', 'delete', id);
    assert.equal(again.code, 4);
    assert.match(again.stderr, /superseded/);
    assert.equal((await ctl('reflect', 'dan', 'delete', next!)).code, 0);
    assert.equal((await ctl('--json', 'list', 'dan')).stdout.trim(), '[]');
  });

  it('usage errors exit 2 with one line; the daemon\'s errors exit 1', async () => {
    for (const args of [['frobnicate'], [], ['add', 'ann'], ['search', 'ann', 'q', '--limit', 'lots'], ['reflect', 'ann', 'merge', 'X'], ['list', 'ann', 'extra'], ['status', '--bogus']]) {
      const r = await ctl(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^memoryctl( \w+)?: .+ \(see memoryctl( \w+)? --help\)\n$/, r.stderr);
    }
    const bad = await ctl('add', 'not an id', 'content');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^memoryctl: invalid params: agentId/);
  });
});

describe('memoryctl without a daemon', () => {
  it('--no-autostart: exits 3 saying no daemon answers; stop never starts one', async () => {
    const { socket } = daemonPaths();
    const r = await memoryctl(['--no-autostart', '--socket', socket, 'status']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^memoryctl: memory daemon unavailable at /);
    const stop = await memoryctl(['--socket', socket, 'stop']);
    assert.equal(stop.code, 3);
    assert.deepEqual(pidsMentioning('memoryd.js', socket), [], 'stop started nothing');
  });

  it('autostarts the daemon like the shim, and stop stops it', async () => {
    const dir = tempDir();
    const socket = join(dir, 'auto.sock');
    const env = { MEMORYD_BIN: DAEMON_BIN, MEMORYD_DATA_DIR: join(dir, 'data') };
    const r = await memoryctl(['--socket', socket, '--json', 'status'], { env });
    assert.equal(r.code, 0, r.stderr);
    const { pid, dataDir } = JSON.parse(r.stdout) as { pid: number; dataDir: string };
    trackPid(pid);
    assert.equal(dataDir, join(dir, 'data'));
    const stop = await memoryctl(['--socket', socket, 'stop'], { env });
    assert.equal(stop.code, 0);
    assert.match(stop.stdout, new RegExp(`Stopping memoryd \\(pid ${pid}\\)`));
  });
});
