// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// memoryctl against a real daemon (docs/architecture.md "memoryctl" and
// docs/api-stability.md "Command lines"): every command, its human output
// and its --json document, the exit codes (0 done, 1 the daemon's error,
// 2 usage, 3 no daemon, 4 not found), --help everywhere, and autostart
// like the shim's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CheckpointSave, MemoryAdd, MemoryReflect } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, daemonPaths, DAEMON_BIN, pidsMentioning, startDaemon, tempDir, trackPid } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';
import { DaemonClient } from '@memoryd/client';

after(cleanupAll);

const COMMANDS = ['status', 'agents', 'add', 'search', 'list', 'history', 'tags', 'update', 'resume', 'save', 'checkpoints', 'embeddings', 'reflect', 'export', 'import', 'backup', 'ui', 'stop'];

/** A daemon of the suite's own, started before its tests and stopped after; memoryctl against it. */
function useDaemon(): { ctl: (...args: string[]) => ReturnType<typeof memoryctl>; daemon: () => DaemonHandle } {
  let d: DaemonHandle;
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
  });
  return { ctl: (...args: string[]) => memoryctl(['--socket', d.socket, ...args]), daemon: () => d };
}

describe('memoryctl against a running daemon', () => {
  const { ctl, daemon } = useDaemon();

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
    assert.match(found.stdout, /^ID +SCORE +TAGS +CONTENT$/m);
    assert.match(found.stdout, new RegExp(`^${id} +\\d\\.\\d{3} +place +The office moved to Lyon$`, 'm'));
    const json = JSON.parse((await ctl('--json', 'search', 'ann', 'office')).stdout) as Array<{ id: string; tags: string[] }>;
    assert.equal(json[0]?.id, id);
    assert.deepEqual(json[0]?.tags, ['place']);

    assert.match((await ctl('list', 'ann')).stdout, new RegExp(`^${id} +\\S+ +place +The office moved to Lyon$`, 'm'));
    assert.deepEqual(JSON.parse((await ctl('list', 'ann', '--json')).stdout).map((f: { id: string }) => f.id), [id]);

    const agents = await ctl('agents');
    assert.match(agents.stdout, /^AGENT +FACTS +CHECKPOINTS$/m);
    assert.match(agents.stdout, /^ann +1 +0$/m);
    assert.deepEqual(JSON.parse((await ctl('agents', '--json')).stdout), [
      { agentId: 'ann', facts: 1, checkpoints: 0 },
      { agentId: 'bob', facts: 1, checkpoints: 0 },
    ]);

    const status = await ctl('status');
    assert.match(status.stdout, new RegExp(`^pid: +${daemon().pid}$`, 'm'));
    assert.match(status.stdout, /^health: +ok$/m);
    const s = JSON.parse((await ctl('--json', 'status')).stdout) as { pid: number; facts: number; health: string };
    assert.equal(s.pid, daemon().pid);
    assert.equal(s.facts, 2);
  });

  it('resume and checkpoints; a missing checkpoint exits 4', async () => {
    const client = new DaemonClient({ socket: daemon().socket, autostart: false });
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
  });

  it('arguments the daemon refuses: exit 2 with a sentence naming the argument, no patterns', async () => {
    for (const [args, said] of [
      [['add', 'not an id', 'content'], /^memoryctl add: AGENT must be 1 to 128 letters, digits or \. _ : @ - \(no spaces\) \(see memoryctl add --help\)$/m],
      [['search', 'ann', 'q', '--limit', '1000'], /^memoryctl search: --limit must be at most 100 /m],
      [['reflect', 'ann', 'delete', 'NOTANID'], /^memoryctl reflect: FACT_ID must be an id as memoryd prints them/m],
      [['add', 'ann', 'x', '--tag', 'ok', '--tag', ' '], /^memoryctl add: --tag \(the 2nd\) /m],
    ] as const) {
      const r = await ctl(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, said);
      assert.doesNotMatch(r.stderr, /\^|\$'|expected string to match/);
    }
  });

  it('text starting with - after --, and options anywhere before it', async () => {
    const added = await ctl('add', 'eve', '--', '- bullet point --json');
    assert.equal(added.code, 0, added.stderr);
    const json = JSON.parse((await ctl('search', 'eve', '--json', '--', '- bullet')).stdout) as Array<{ content: string }>;
    assert.equal(json[0]?.content, '- bullet point --json');
    const after = await ctl('add', 'eve', 'plain text', '--json');
    assert.equal(after.code, 0);
    assert.ok('factId' in JSON.parse(after.stdout), 'a global option after the arguments still counts');
  });

  it('save: a JSON object from a file or stdin, with --message-count; resume reads it back', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeFileSync(file, JSON.stringify({ step: 3, notes: ['a', 'b'] }));
    const saved = await ctl('save', 'fay', file, '--message-count', '12');
    assert.equal(saved.code, 0, saved.stderr);
    const id = /^Saved checkpoint (\S+) for agent "fay"\.$/m.exec(saved.stdout)?.[1];
    assert.ok(id !== undefined, saved.stdout);
    const back = JSON.parse((await ctl('--json', 'resume', 'fay')).stdout) as { id: string; state: unknown; messageCount: number };
    assert.deepEqual([back.id, back.state, back.messageCount], [id, { step: 3, notes: ['a', 'b'] }, 12]);
    const piped = await memoryctl(['--socket', daemon().socket, '--json', 'save', 'fay', '-'], { input: '{"step": 4}' });
    assert.equal(piped.code, 0, piped.stderr);
    assert.ok('checkpointId' in JSON.parse(piped.stdout));
    assert.deepEqual(JSON.parse((await ctl('--json', 'resume', 'fay')).stdout).state, { step: 4 });
    for (const [input, said] of [['[1, 2]', /must be a JSON object, got an array/], ['{"step":', /is not JSON/]] as const) {
      const r = await memoryctl(['--socket', daemon().socket, 'save', 'fay'], { input });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, said);
    }
    assert.match((await ctl('save', 'fay', join(dir, 'missing.json'))).stderr, /cannot read STATE_FILE .*missing\.json/);
  });

  it('list --limit says on stderr when more facts exist', async () => {
    for (const content of ['one', 'two', 'three']) await ctl('add', 'gus', content);
    const cut = await ctl('list', 'gus', '--limit', '2');
    assert.equal(cut.code, 0);
    assert.match(cut.stderr, /^memoryctl: more facts exist after these 2; raise --limit to see them$/m);
    assert.equal((await ctl('list', 'gus', '--limit', '3')).stderr, '');
  });

  it('list --newest pages newest first; with --limit N, the N latest', async () => {
    const client = new DaemonClient({ socket: daemon().socket, autostart: false });
    const ids: string[] = [];
    // More than one page of memory.list (100 a call).
    for (let i = 0; i < 130; i++) ids.push((await client.call(MemoryAdd, { agentId: 'neo', content: `neo fact ${i}`, ...(i % 50 === 0 ? { tags: ['fifty'] } : {}) })).factId);
    await client.call(MemoryReflect, { agentId: 'neo', action: 'delete', factId: ids[129]! });
    await client.close();
    const current = ids.slice(0, 129);
    const all = await ctl('--json', 'list', 'neo', '--newest');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual((JSON.parse(all.stdout) as Array<{ id: string }>).map((f) => f.id), [...current].reverse());
    const latest = await ctl('list', '--newest', 'neo', '--limit', '2');
    assert.equal(latest.code, 0, latest.stderr);
    assert.deepEqual([...latest.stdout.matchAll(/^(\S{26}) .* neo fact (\d+)$/gm)].map((m) => [m[1], m[2]]), [[ids[128], '128'], [ids[127], '127']]);
    assert.match(latest.stderr, /^memoryctl: more facts exist after these 2; raise --limit to see them$/m);
    assert.deepEqual((JSON.parse((await ctl('--json', 'list', 'neo', '--newest', '--tag', 'Fifty')).stdout) as Array<{ id: string }>).map((f) => f.id), [ids[100], ids[50], ids[0]]);
    assert.match((await ctl('list', '--help')).stdout, /^  --newest +newest first/m);
  });
});

describe('memoryctl without a daemon', () => {
  it('--no-autostart: exits 3 saying no daemon answers; stop never starts one', async () => {
    const { socket } = daemonPaths();
    const r = await memoryctl(['--no-autostart', '--socket', socket, 'status']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^memoryctl: memory daemon unavailable at /);
    const stop = await memoryctl(['--socket', socket, 'stop']);
    assert.equal(stop.code, 0, 'stopping what is not running is done');
    assert.equal(stop.stdout, 'memoryd is not running.\n');
    assert.deepEqual(JSON.parse((await memoryctl(['--socket', socket, '--json', 'stop'])).stdout), { stopped: false, running: false });
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

describe('memoryctl filters, tags and history', () => {
  const { ctl } = useDaemon();

  it('filters search and list by tag and time, changes tags, and shows tags and history', async () => {
    const id = /Stored fact (\S+)/.exec((await ctl('add', 'flt', 'Green tea in the morning', '--tag', 'Preference')).stdout)?.[1];
    await ctl('add', 'flt', 'Tea meeting on Friday', '--tag', 'work');
    assert.ok(id !== undefined);
    const tagged = await ctl('search', 'flt', 'tea', '--tag', 'preference');
    assert.equal(tagged.code, 0, tagged.stderr);
    assert.deepEqual([...tagged.stdout.matchAll(/^(\S{26}) /gm)].map((m) => m[1]), [id]);
    assert.equal((await ctl('search', 'flt', 'tea', '--tag', 'work', '--tag', 'preference')).stdout, 'no facts of agent "flt" match "tea" tagged "work", "preference"\n');
    // Relative times: every fact was written in the last hour, none before yesterday.
    assert.equal(JSON.parse((await ctl('--json', 'list', 'flt', '--since', '1h')).stdout).length, 2);
    assert.equal(JSON.parse((await ctl('--json', 'list', 'flt', '--until', 'yesterday')).stdout).length, 0);
    assert.equal(JSON.parse((await ctl('--json', 'search', 'flt', 'tea', '--since', 'today', '--until', 'now')).stdout).length, 2);
    const bad = await ctl('list', 'flt', '--since', 'last week');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since must be an RFC 3339 time .* got "last week"/);

    const updated = await ctl('--json', 'update', 'flt', id, '--tag', 'preference', '--tag', 'drinks');
    assert.equal(updated.code, 0, updated.stderr);
    const next = (JSON.parse(updated.stdout) as { supersededBy: string }).supersededBy;
    assert.match((await ctl('update', 'flt', next, 'Black tea in the morning')).stdout, /^Updated fact \S+ of agent "flt": the new version is fact \S+\.$/m);
    assert.equal((await ctl('update', 'flt', next, '--tag', 'x')).code, 4, 'a replaced version is not current');
    assert.equal((await ctl('update', 'flt', id)).code, 2, 'nothing to change');

    const tags = await ctl('tags', 'flt');
    assert.match(tags.stdout, /^TAG +FACTS\ndrinks +1\npreference +1\nwork +1\n$/);
    assert.deepEqual(JSON.parse((await ctl('--json', 'tags', 'flt')).stdout), [
      { tag: 'drinks', count: 1 },
      { tag: 'preference', count: 1 },
      { tag: 'work', count: 1 },
    ]);

    const history = await ctl('history', 'flt', id);
    assert.equal(history.code, 0, history.stderr);
    const rows = history.stdout.trimEnd().split('\n');
    assert.match(rows[0]!, /^ID +WRITTEN +CHANGE +THEN +TAGS +CONTENT$/);
    assert.match(rows[1]!, new RegExp(`^${id} +\\S+ +added +replaced by ${next} \\S+ +Preference +Green tea in the morning$`));
    assert.match(rows[2]!, new RegExp(`^${next} +\\S+ +tags changed +replaced by \\S+ \\S+ +preference,drinks +Green tea in the morning$`));
    assert.match(rows[3]!, /^\S+ +\S+ +text changed +current +preference,drinks +Black tea in the morning$/);
    assert.equal(JSON.parse((await ctl('--json', 'history', 'flt', next)).stdout).length, 3);
    assert.equal((await ctl('history', 'flt', '01ZZZZZZZZZZZZZZZZZZZZZZZZ')).code, 4);
  });

  it('history of a merge: the fact that held the text first stays "added", the one merged into it is replaced', async () => {
    const held = (JSON.parse((await ctl('--json', 'add', 'mrg', 'The cat is called Tom')).stdout) as { factId: string }).factId;
    const other = (JSON.parse((await ctl('--json', 'add', 'mrg', 'The cat is called Tim')).stdout) as { factId: string }).factId;
    const merged = JSON.parse((await ctl('--json', 'update', 'mrg', other, 'The cat is called Tom')).stdout) as { supersededBy: string };
    assert.equal(merged.supersededBy, held);
    const rows = (await ctl('history', 'mrg', held)).stdout.trimEnd().split('\n');
    assert.match(rows[1]!, new RegExp(`^${held} +\\S+ +added +current +- +The cat is called Tom$`));
    assert.match(rows[2]!, new RegExp(`^${other} +\\S+ +added +replaced by ${held} \\S+ +- +The cat is called Tim$`));
  });
});
