// Docs that are tested (issue 33): the commands of the README and
// docs/operations.md marked runnable run against a real daemon in a temp
// HOME and must print what the docs show; their flag tables must list the
// options `memoryd --help` (and `memoryd-mcp --help`) prints; the README's
// memoryctl section must show every command of `memoryctl --help`, and no
// other. The markers and the matching rules are at the top of
// helpers/doctest.ts and helpers/help-tables.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { cleanupAll, DAEMON_BIN, type DaemonHandle, daemonsUnder, MEMORYCTL_BIN, startDaemon, terminate } from '@memoryd/test-support';
import { type DocEnv, docEnv, matchOutput, runCommand, runnableCommands } from './helpers/doctest.js';
import { checkCommands, checkFlagTable, documentedCommands, flagTables, type Help, parseHelp } from './helpers/help-tables.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BINS = { memoryd: DAEMON_BIN, 'memoryd-mcp': join(REPO, 'packages/mcp/bin/memoryd-mcp.js'), memoryctl: MEMORYCTL_BIN };
const read = (doc: string) => readFileSync(join(REPO, doc), 'utf8');

/** The documents whose runnable blocks run, with the fewest commands each must have (a lost marker fails). */
const RUN = [
  { doc: 'README.md', atLeast: 12 },
  { doc: 'docs/operations.md', atLeast: 6 },
];
/** The documents whose flag tables are checked. */
const TABLES = ['README.md', 'docs/operations.md', 'docs/embeddings.md'];
/** The tables that must list every option of a --help. */
const EXHAUSTIVE = [
  { doc: 'README.md', bin: 'memoryd' },
  { doc: 'README.md', bin: 'memoryd-mcp' },
  { doc: 'docs/operations.md', bin: 'memoryd' },
];

after(cleanupAll);

function helpOf(bin: keyof typeof BINS): string {
  return execFileSync(process.execPath, [BINS[bin], '--help'], { encoding: 'utf8', timeout: 15_000, env: { ...process.env, NO_COLOR: '1' } });
}

for (const { doc, atLeast } of RUN) {
  describe(`${doc}: the runnable commands`, () => {
    const commands = runnableCommands(doc, read(doc));
    const bound = new Map<string, string>();
    let e: DocEnv | undefined;
    let d: DaemonHandle | undefined;
    before(async () => {
      const env = await docEnv(BINS);
      e = env;
      d = await startDaemon({ socket: env.socket, dataDir: env.dataDir, env: env.overrides, logLevel: 'info' });
    });
    after(async () => {
      await d?.stop();
      // Daemons the commands started (memoryctl autostarts one on another socket).
      if (e !== undefined) for (const pid of daemonsUnder(e.root)) await terminate(pid);
    });

    it(`has at least ${atLeast} runnable commands`, () => {
      assert.ok(commands.length >= atLeast, `${doc} has ${commands.length} runnable commands`);
    });

    for (const cmd of commands) {
      it(`${doc}:${cmd.line} ${cmd.text.split('\n')[0]!.replace(/\s+#.*$/, '')}`, async () => {
        assert.ok(e !== undefined && d !== undefined, "the document's daemon did not start");
        const problem = await runCommand(cmd, e, bound);
        if (problem !== undefined) assert.fail(problem);
      });
    }
  });
}

describe('the flag tables and the command list, against --help', () => {
  const helps = new Map<string, Help>();
  before(() => {
    for (const bin of Object.keys(BINS) as (keyof typeof BINS)[]) helps.set(bin, parseHelp(helpOf(bin)));
  });

  it('reads the options, variables and commands of each --help', () => {
    const memoryd = helps.get('memoryd')!;
    assert.deepEqual(memoryd.flags.find((f) => f.flag === '--socket'), { flag: '--socket', metavar: 'PATH', env: 'MEMORYD_SOCKET' });
    assert.deepEqual(memoryd.flags.find((f) => f.flag === '--no-sync'), { flag: '--no-sync', env: 'MEMORYD_NO_SYNC' });
    assert.ok(memoryd.flags.some((f) => f.flag === '--version'));
    assert.ok(helps.get('memoryd-mcp')!.envOnly.includes('MEMORYD_BIN'));
    assert.ok(helps.get('memoryctl')!.commands.includes('status'));
  });

  it('every flag table of the docs matches its --help', () => {
    const problems: string[] = [];
    for (const doc of TABLES) {
      for (const table of flagTables(doc, read(doc))) {
        const help = helps.get(table.bin);
        if (help === undefined) problems.push(`${doc}:${table.line}: no --help of ${table.bin} to check against`);
        else problems.push(...checkFlagTable(table, help));
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the README and operations.md each list every flag of memoryd --help (and the README of memoryd-mcp --help)', () => {
    for (const { doc, bin } of EXHAUSTIVE) {
      const tables = flagTables(doc, read(doc)).filter((t) => t.bin === bin && t.every);
      assert.equal(tables.length, 1, `${doc}: one table marked <!-- doctest: every flag of ${bin} -->`);
    }
  });


  it("the README's memoryctl section shows every command of memoryctl --help, and no other", () => {
    const help = helps.get('memoryctl')!;
    assert.deepEqual(checkCommands('README.md', documentedCommands(read('README.md'), '## memoryctl', help), help), []);
  });

  it("the README's memoryctl section names every option of memoryctl --help", () => {
    const text = read('README.md');
    const section = text.slice(text.indexOf('\n## memoryctl\n'), text.indexOf('\n## ', text.indexOf('\n## memoryctl\n') + 1));
    for (const f of helps.get('memoryctl')!.flags) assert.ok(section.includes(`\`${f.flag}`), `README.md's memoryctl section does not name ${f.flag}`);
  });
});

// The harness fails when it should: these feed it documents and --help
// texts that disagree.
describe('the doc-test harness', () => {
  it('reads runnable blocks, their output lines, exit statuses and text blocks; skips the rest', () => {
    const doc = [
      '```sh',
      'not run',
      '```',
      '```sh doctest',
      '# a comment',
      'memoryctl add a "x" \\',
      '  --tag t       # stored',
      '#> Stored fact <ID> for agent "a".',
      'memoryctl stop',
      '#> [exit 3]',
      'memoryctl status',
      '```',
      'It prints:',
      '```text doctest',
      'version: …',
      '…',
      '```',
    ].join('\n');
    const cmds = runnableCommands('x.md', doc);
    assert.deepEqual(
      cmds.map((c) => [c.line, c.text, c.expected, c.exit]),
      [
        [6, 'memoryctl add a "x" \\\n  --tag t       # stored', ['Stored fact <ID> for agent "a".'], 0],
        [9, 'memoryctl stop', [], 3],
        [11, 'memoryctl status', ['version: …', '…'], 0],
      ],
    );
    assert.throws(() => runnableCommands('x.md', '```text doctest\nfoo\n```'), /must follow a sh doctest block/);
  });

  it('matches output with … and <NAME>, binding names and holding them to their first value', () => {
    const b = matchOutput(['Stored fact <ID> for agent "a".'], ['Stored fact 01ABC for agent "a".', '']);
    assert.equal(b?.get('ID'), '01ABC');
    assert.ok(matchOutput(['<ID>   …  The office'], ['01ABC 0.288 The office'], b));
    assert.equal(matchOutput(['<ID> …'], ['01XYZ 0.288'], b), undefined);
    assert.ok(matchOutput(['a', '…', 'z'], ['a', 'b', 'c', 'z']));
    assert.ok(matchOutput(['a', '…', 'z'], ['a', 'z']));
    assert.equal(matchOutput(['a', 'z'], ['a', 'b', 'z']), undefined);
    assert.equal(matchOutput(['a'], ['a', 'extra']), undefined);
  });

  it('runs a command in the temp home: fails it on other output or another exit status, passes bound names on', async () => {
    const e = await docEnv(BINS);
    const bound = new Map<string, string>();
    const cmd = (text: string, expected?: string[]) => runnableCommands('x.md', ['```sh doctest', text, ...(expected ?? []).map((l) => `#> ${l}`), '```'].join('\n'))[0]!;
    assert.equal(await runCommand(cmd('echo "$HOME/a $XDG_RUNTIME_DIR" && pwd', ['/home/you/<WHERE> /run/user/1000', '/home/you']), e, bound), undefined);
    assert.equal(bound.get('WHERE'), 'a');
    assert.equal(await runCommand(cmd('echo "got $WHERE"', ['got a']), e, bound), undefined);
    assert.match((await runCommand(cmd('echo hi', ['bye']), e, bound))!, /printed something else/);
    assert.match((await runCommand(cmd('echo hi; exit 3'), e, bound))!, /exited 3, the doc expects 0/);
    assert.equal(await runCommand(cmd('echo hi >&2; exit 3', ['hi', '[exit 3]']), e, bound), undefined);
    assert.match((await runCommand(cmd('echo x', ['<HOME>']), e, bound))!, /would hide the variable HOME/);
    assert.equal(await runCommand(cmd('memoryd --version && memoryctl --version'), e, bound), undefined);
  });

  it('fails a flag table when a documented flag disappears from --help or a new one is undocumented', () => {
    const real = helpOf('memoryd');
    const table = flagTables('README.md', read('README.md')).find((t) => t.bin === 'memoryd' && t.every)!;
    assert.deepEqual(checkFlagTable(table, parseHelp(real)), []);
    const without = real.replace(/^ {2}--store KIND.*$/m, '');
    assert.ok(checkFlagTable(table, parseHelp(without)).some((p) => /--store is not an option/.test(p)));
    const more = real.replace(/^(Options.*:)$/m, '$1\n  --frobnicate N          a new one              [MEMORYD_FROBNICATE]');
    assert.ok(checkFlagTable(table, parseHelp(more)).some((p) => /has --frobnicate, this table does not/.test(p)));
    const renamed = real.replace('[MEMORYD_LOG_LEVEL]', '[MEMORYD_LOGLEVEL]');
    assert.ok(checkFlagTable(table, parseHelp(renamed)).some((p) => /--log-level's variable is MEMORYD_LOGLEVEL/.test(p)));
  });

  it('fails the command list when a documented command disappears or a new one is undocumented', () => {
    const real = helpOf('memoryctl');
    const shown = documentedCommands(read('README.md'), '## memoryctl', parseHelp(real));
    const without = parseHelp(real.replace(/^ {2}backup .*$/m, ''));
    assert.deepEqual(checkCommands('README.md', shown, without), ['README.md: the doc shows memoryctl backup, which memoryctl --help does not list']);
    const more = parseHelp(real.replace(/^(Commands:)$/m, '$1\n  frob         a new one'));
    assert.deepEqual(checkCommands('README.md', shown, more), ['README.md: memoryctl --help has the command frob, the doc does not show it']);
  });
});
