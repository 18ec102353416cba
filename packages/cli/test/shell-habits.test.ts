// memoryctl as a new user drives it from a shell (issue 39, "Shell habits"):
// a reader that leaves early (`| head -1`) ends the command quietly with
// exit 0; a mistyped command, option or action gets the nearest as "did
// you mean"; a file that cannot be read or written is one sentence with
// exit 2; counts say "1 record"; a search of an agent that has no facts
// says so. Against a real daemon where a command needs one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { MemoryAdd } from '@memoryd/protocol';
import { cleanEnv, cleanupAll, type DaemonHandle, MEMORYCTL_BIN, startDaemon, tempDir, trackPid, untrackPid, withTimeout } from '@memoryd/test-support';
import { memoryctl } from './helpers/memoryctl.js';

after(cleanupAll);

/**
 * Runs memoryctl with a stdout whose reader leaves: at once (`'start'`),
 * or after the first chunk it reads (`'first chunk'`, as `head -1` does).
 * Resolves with the exit code, what was read and the whole stderr.
 */
async function withReaderLeaving(args: string[], when: 'start' | 'first chunk', env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, [MEMORYCTL_BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid!);
  let read = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  if (when === 'start') child.stdout.destroy();
  else {
    child.stdout.setEncoding('utf8').once('data', (t: string) => {
      read = t;
      child.stdout.destroy();
    });
  }
  const code = await withTimeout(new Promise<number | null>((resolve) => child.once('close', resolve)), 30_000, `memoryctl ${args.join(' ')}`);
  untrackPid(child.pid!);
  return { code, read, stderr };
}

describe('a reader that leaves early', () => {
  it('service install --dry-run | head: exit 0, nothing on stderr', async () => {
    const home = tempDir();
    const r = await withReaderLeaving(['service', 'install', '--dry-run', '--target', 'systemd'], 'start', { HOME: home, XDG_CONFIG_HOME: undefined });
    assert.deepEqual([r.code, r.stderr], [0, '']);
  });

  it('export | head -1: exit 0, nothing on stderr, after the header line', async () => {
    const d = await startDaemon();
    try {
      // ~450 KB of export, several times what a pipe holds and a read takes: the writer cannot be done when the reader leaves.
      const client = new DaemonClient({ socket: d.socket, autostart: false });
      const filler = 'the harbour crane lifts another container onto the quay '.repeat(25);
      for (let batch = 0; batch < 300; batch += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => client.call(MemoryAdd, { agentId: 'ann', content: `fact ${batch + i}: ${filler}` })));
      }
      await client.close();
      const r = await withReaderLeaving(['--socket', d.socket, '--no-autostart', 'export'], 'first chunk');
      assert.match(r.read, /^\{"type":"memoryd-export"/);
      assert.deepEqual([r.code, r.stderr], [0, '']);
    } finally {
      await d.stop();
    }
  });
});

describe('typos', () => {
  it('an unknown command, option or action names the nearest one; exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['serach', 'ann', 'q'], 'memoryctl: unknown command "serach"; did you mean "search"? (see memoryctl --help)'],
      [['search', 'ann', 'q', '--limt', '3'], 'memoryctl search: unknown option --limt; did you mean --limit? (see memoryctl search --help)'],
      [['search', 'ann', 'q', '-limit', '3'], 'memoryctl search: unknown option -limit; did you mean --limit? (see memoryctl search --help)'],
      [['list', 'ann', '--jsno'], 'memoryctl list: unknown option --jsno; did you mean --json? (see memoryctl list --help)'],
      [['reflect', 'ann', 'dleete', 'X'], 'memoryctl reflect: ACTION must be update or delete, got "dleete"; did you mean "delete"? (see memoryctl reflect --help)'],
      // Nothing near: no guess, and the quotes of the sentence balance.
      [['frobnicate'], 'memoryctl: unknown command "frobnicate" (see memoryctl --help)'],
      [['add', 'ann', '-x'], 'memoryctl add: unknown option -x; text that starts with - goes after -- (see memoryctl add --help)'],
      [['search', 'ann', 'q', '--limit'], 'memoryctl search: --limit needs a value (see memoryctl search --help)'],
    ];
    for (const [args, said] of cases) {
      const r = await memoryctl(['--no-autostart', '--socket', join(tempDir(), 'none.sock'), ...args]);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${said}\n`], args.join(' '));
    }
  });
});

describe('with a daemon', () => {
  let d: DaemonHandle;
  const ctl = (...args: string[]) => memoryctl(['--socket', d.socket, '--no-autostart', ...args]);
  before(async () => {
    d = await startDaemon();
  });
  after(async () => {
    await d.stop();
  });

  it('a file that cannot be read or written is one sentence naming it, exit 2', async () => {
    const dir = tempDir();
    const notDir = join(dir, 'plain');
    writeFileSync(notDir, 'not a directory');
    mkdirSync(join(dir, 'sub'));
    const cases: Array<[string[], string]> = [
      [['import', join(dir, 'missing.jsonl')], `memoryctl import: cannot read ${dir}/missing.jsonl: no such file`],
      [['import', dir], `memoryctl import: cannot read ${dir}: is a directory`],
      [['save', 'ann', join(dir, 'missing.json')], `memoryctl save: cannot read STATE_FILE ${dir}/missing.json: no such file`],
      [['export', '-o', join(dir, 'nowhere', 'all.jsonl')], `memoryctl export: cannot write ${dir}/nowhere/all.jsonl: no such directory ${dir}/nowhere`],
      [['export', '-o', join(dir, 'sub')], `memoryctl export: cannot write ${dir}/sub: is a directory`],
      [['backup', notDir], `memoryctl backup: cannot create the directory ${notDir}: a file of that name is in the way`],
      [['backup', join(notDir, 'b')], `memoryctl backup: cannot create the directory ${notDir}/b: a part of the path is not a directory`],
    ];
    for (const [args, said] of cases) {
      const r = await ctl(...args);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${said} (see memoryctl ${args[0]} --help)\n`], args.join(' '));
    }
  });

  it('counts agree with their nouns: 1 record, 2 records', async () => {
    const dir = tempDir();
    const client = new DaemonClient({ socket: d.socket, autostart: false });
    await client.call(MemoryAdd, { agentId: 'one', content: 'the only fact of agent one' });
    await client.close();
    const file = join(dir, 'one.jsonl');
    const exported = await ctl('export', '--agent', 'one', '-o', file);
    assert.equal(exported.stderr, `memoryctl: exported 1 record to ${file}\n`);
    const target = await startDaemon();
    try {
      const first = await memoryctl(['--socket', target.socket, '--no-autostart', 'import', file]);
      assert.equal(first.stdout, 'Imported 1 record, skipped 0 already there, rejected 0.\n');
      const again = await memoryctl(['--socket', target.socket, '--no-autostart', 'import', file]);
      assert.equal(again.stdout, 'Imported 0 records, skipped 1 already there, rejected 0.\n');
      const backup = await memoryctl(['--socket', target.socket, '--no-autostart', 'backup', join(dir, 'b')]);
      assert.match(backup.stdout, /^Backed up 1 record to /);
    } finally {
      await target.stop();
    }
  });

  it('search: an agent with no facts at all is said as such, with the near spelling that has some', async () => {
    await ctl('add', 'carol', 'The boat leaves at noon');
    const none = await ctl('search', 'nobody', 'boat');
    assert.deepEqual([none.code, none.stdout, none.stderr], [0, 'agent "nobody" has no facts\n', '']);
    const typo = await ctl('search', 'Carol', 'boat');
    assert.deepEqual([typo.code, typo.stdout], [0, 'agent "Carol" has no facts; did you mean "carol"?\n']);
    // An agent with facts, none matching: as before.
    assert.equal((await ctl('search', 'carol', 'train')).stdout, 'no facts of agent "carol" match "train"\n');
    assert.equal((await ctl('list', 'caro')).stdout, 'agent "caro" has no facts; did you mean "carol"?\n');
    // --json is the result as it is.
    const json = await ctl('--json', 'search', 'nobody', 'boat');
    assert.deepEqual([json.code, JSON.parse(json.stdout)], [0, []]);
  });
});
