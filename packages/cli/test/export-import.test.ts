// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// memoryctl export, import and backup against real daemons (issue 14):
// export → import into a fresh data dir gives the same memory.list and
// checkpoint results for every agent; a second import adds nothing; a file
// with bad lines reports exactly those line numbers and imports the rest;
// a backup taken while 4 clients write restores to a consistent state.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { AdminImport, AgentList, CheckpointList, CheckpointSave, DaemonStatus, MemoryAdd, MemoryList, MemoryReflect } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, makeUlid, mountTmpfs, startDaemon, tempDir } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';

after(cleanupAll);

/** Everything an agent holds as the read methods show it: current facts and checkpoints, in order. */
async function snapshot(socket: string): Promise<unknown> {
  const client = new DaemonClient({ socket, autostart: false });
  try {
    const out: Record<string, unknown> = {};
    for (const { agentId } of (await client.call(AgentList, {})).agents) {
      const facts: unknown[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await client.call(MemoryList, after === undefined ? { agentId, limit: 100 } : { agentId, limit: 100, after });
        facts.push(...page.facts);
        if (page.next === undefined) break;
        after = page.next;
      }
      const checkpoints = (await client.call(CheckpointList, { agentId, limit: 100 })).checkpoints;
      out[agentId] = { facts, checkpoints };
    }
    return out;
  } finally {
    await client.close();
  }
}

/** A daemon with three agents' facts (some updated, some deleted) and checkpoints. */
async function populated(): Promise<DaemonHandle> {
  const d = await startDaemon();
  const client = new DaemonClient({ socket: d.socket, autostart: false });
  for (const agentId of ['ann', 'bob', 'cy']) {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await client.call(MemoryAdd, { agentId, content: `${agentId} fact ${i} about the harbour`, ...(i % 3 === 0 ? { tags: ['t'] } : {}) })).factId);
    await client.call(MemoryReflect, { agentId, action: 'update', factId: ids[1]!, content: `${agentId} fact 1, corrected` });
    await client.call(MemoryReflect, { agentId, action: 'delete', factId: ids[2]! });
    for (let i = 0; i < 3; i++) await client.call(CheckpointSave, { agentId, state: { step: i, agentId }, messageCount: i });
  }
  await client.close();
  return d;
}

describe('export and import', () => {
  it('export → import into a fresh data dir gives the same lists and checkpoints; a second import adds nothing', async () => {
    const source = await populated();
    const file = join(tempDir(), 'all.jsonl');
    const exported = await memoryctl(['--socket', source.socket, 'export', '-o', file]);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.deepEqual(Object.keys(JSON.parse(lines[0]!)).sort(), ['createdAt', 'daemonVersion', 'type', 'version']);
    assert.equal(lines.length, 1 + 3 * (30 + 1) + 3 * 3, 'header, every fact version (the update added one), every checkpoint');

    const target = await startDaemon();
    const first = await memoryctl(['--socket', target.socket, '--json', 'import', file]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { imported: lines.length - 1, skipped: 0, rejected: [] });
    assert.deepEqual(await snapshot(target.socket), await snapshot(source.socket));

    const again = await memoryctl(['--socket', target.socket, '--json', 'import', file]);
    assert.deepEqual(JSON.parse(again.stdout), { imported: 0, skipped: lines.length - 1, rejected: [] });
    assert.deepEqual(await snapshot(target.socket), await snapshot(source.socket));

    // Through stdin, one agent's export: the same records again, nothing new.
    const ann = await memoryctl(['--socket', source.socket, 'export', '--agent', 'ann']);
    const piped = await memoryctl(['--socket', target.socket, 'import'], { input: ann.stdout });
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stdout, /^Imported 0 records, skipped 34 already there, rejected 0\.$/m);
    await source.stop();
    await target.stop();
  });

  it('a file with bad lines: each reported as `line N: REASON`, the rest imported, exit 1', async () => {
    const source = await populated();
    const good = (await memoryctl(['--socket', source.socket, 'export', '--agent', 'bob'])).stdout.trimEnd().split('\n');
    await source.stop();
    const bad = [
      ...good.slice(0, 5),
      'this is not JSON',
      JSON.stringify({ type: 'fact', agentId: 'bob', content: 'no id' }),
      ...good.slice(5, 10),
      JSON.stringify({ type: 'checkpoint', agentId: 'not an agent id!', id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', createdAt: '2026-12-03T00:00:00.000Z', state: {} }),
      ...good.slice(10),
    ];
    const file = join(tempDir(), 'bad.jsonl');
    writeFileSync(file, `${bad.join('\n')}\n`);
    const target = await startDaemon();
    const r = await memoryctl(['--socket', target.socket, 'import', file]);
    assert.equal(r.code, 1);
    const reported = r.stderr.trimEnd().split('\n');
    assert.deepEqual(reported.map((l) => Number(/^line (\d+): /.exec(l)?.[1])), [6, 7, 13], r.stderr);
    assert.match(reported[0]!, /^line 6: not JSON$/);
    assert.match(reported[1]!, /^line 7: id: /);
    assert.match(reported[2]!, /^line 13: agentId: /);
    assert.match(r.stdout, new RegExp(`^Imported ${good.length - 1} records, skipped 0 already there, rejected 3\\.$`, 'm'));
    const header = await memoryctl(['--socket', target.socket, 'import'], { input: 'not a header\n' });
    assert.equal(header.code, 1);
    assert.match(header.stderr, /line 1: not a memoryd export file/);
    await target.stop();
  });
});

describe('export to a full disk', () => {
  it('says so in one sentence, exit 2, and leaves no file behind', async (t) => {
    const fs = mountTmpfs(1);
    if ('skip' in fs) return t.skip(fs.skip);
    const d = await startDaemon();
    const client = new DaemonClient({ socket: d.socket, autostart: false });
    // About 2 MiB of records for a 1 MiB disk.
    for (let k = 0; k < 2; k++) {
      const records = Array.from({ length: 1000 }, (_, j) => ({ type: 'fact', agentId: 'big', id: makeUlid(1_700_000_000_000 + k * 1000 + j, k * 1000 + j), content: `fact ${k * 1000 + j} ${'x'.repeat(1000)}`, createdAt: new Date(1_700_000_000_000 + k * 1000 + j).toISOString() }));
      assert.equal((await client.call(AdminImport, { records })).imported, 1000);
    }
    await client.close();
    const file = join(fs.dir, 'all.jsonl');
    const r = await memoryctl(['--socket', d.socket, 'export', '-o', file]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /no space left/i);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
    assert.deepEqual(readdirSync(fs.dir), [], 'neither the file nor its .partial');
    await d.stop();
  });
});

describe('backup', () => {
  it('while 4 clients write, it writes one consistent snapshot that restores whole', async () => {
    const d = await startDaemon();
    const writers = await Promise.all([0, 1, 2, 3].map(() => new DaemonClient({ socket: d.socket, autostart: false })));
    let writing = true;
    const loops = writers.map(async (client, w) => {
      for (let i = 0; writing; i++) await client.call(MemoryAdd, { agentId: `w${w}`, content: `writer ${w} fact ${i}` });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dir = join(tempDir(), 'backups');
    const b = await memoryctl(['--socket', d.socket, 'backup', dir]);
    writing = false;
    await Promise.all(loops);
    for (const c of writers) await c.close();
    assert.equal(b.code, 0, b.stderr);
    const [name] = readdirSync(dir);
    assert.match(name!, /^memoryd-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.jsonl$/);
    assert.match(b.stdout, new RegExp(`^Backed up \\d+ records to ${join(dir, name!).replace(/[.]/g, '\\.')}$`, 'm'));

    // Restore: a fresh data dir, then import. Each writer's facts form an unbroken prefix of what it wrote.
    const restored = await startDaemon();
    const imp = await memoryctl(['--socket', restored.socket, 'import', join(dir, name!)]);
    assert.equal(imp.code, 0, imp.stderr);
    const snap = (await snapshot(restored.socket)) as Record<string, { facts: Array<{ content: string }> }>;
    for (const [agentId, { facts }] of Object.entries(snap)) {
      const w = agentId.slice(1);
      assert.deepEqual(facts.map((f) => f.content), facts.map((_, i) => `writer ${w} fact ${i}`), `${agentId}: a prefix, nothing torn`);
    }
    const client = new DaemonClient({ socket: restored.socket, autostart: false });
    const status = await client.call(DaemonStatus, {});
    await client.close();
    assert.equal(status.facts, Object.values(snap).reduce((n, a) => n + a.facts.length, 0));
    await d.stop();
    await restored.stop();
  });
});
