// The `memoryd` command line (issue 2; docs/api-stability.md "Command
// lines"): --help explains every flag and the socket and data-dir
// variables, exits 0; --version prints the version daemon.hello reports;
// a usage error exits 2 with a plain last line and no stack trace.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { readdirSync } from 'node:fs';
import { DaemonHello, MemoryAdd, MemoryList } from '@memoryd/protocol';
import { cleanupAll, spawnDaemon, startDaemon } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';
import { assertUsageError, itRefusesAsUsage } from './helpers/usage-errors.js';
import { PACKAGE_VERSION } from './helpers/shapes.js';

after(cleanupAll);

const FLAGS = ['--socket', '--data-dir', '--no-sync', '--log-level', '--max-connections', '--export-cursor-ttl', '--index-memory', '--store', '--pg-url-file', '--verify', '--repair', '--help', '--version'];
const ENV = ['MEMORYD_SOCKET', 'MEMORYD_DATA_DIR', 'MEMORYD_INDEX_MEMORY_MIB', 'MEMORYD_STORE', 'MEMORYD_PG_URL_FILE'];

describe('memoryd --help', () => {
  it('exits 0 and mentions every flag and the socket and data-dir variables', async () => {
    const d = await spawnDaemon({ args: ['--help'], wait: 'exit', timeoutMs: 10_000 });
    assert.deepEqual(d.exit(), { code: 0, signal: null });
    const text = d.stdout();
    for (const flag of [...FLAGS, ...ENV]) assert.ok(text.includes(flag), `--help mentions ${flag}`);
  });
});

describe('memoryd --version', () => {
  it('exits 0 and prints the version daemon.hello reports', async () => {
    const v = await spawnDaemon({ args: ['--version'], wait: 'exit', timeoutMs: 10_000 });
    assert.deepEqual(v.exit(), { code: 0, signal: null });
    assert.ok(v.stdout().includes(PACKAGE_VERSION), v.stdout());
    const d = await startDaemon();
    const c = await connect(d.socket);
    assert.equal((await c.ok(DaemonHello, {})).daemonVersion, PACKAGE_VERSION);
    c.socket.destroy();
    await d.stop();
  });
});

describe('usage errors', () => {
  const bad: Array<[string, string[]]> = [
    ['an unknown flag', ['--bogus']],
    ['a bad log level', ['--log-level', 'loud']],
    ['a non-numeric connection cap', ['--max-connections', 'many']],
    ['a zero connection cap', ['--max-connections', '0']],
    ['a positional argument', ['extra']],
    ['--verify with --repair', ['--verify', '--repair']],
  ];
  for (const [name, args] of bad) {
    it(`${name} exits 2 with a plain last line and no stack trace`, async () => {
      const d = await spawnDaemon({ args, wait: 'exit', timeoutMs: 5000 });
      assert.deepEqual(d.exit(), { code: 2, signal: null }, d.stderr());
      assert.match(d.lastStderrLine(), /^memoryd: /);
      assert.doesNotMatch(d.stderr(), /^\s+at /m);
    });
  }
});

describe('memoryd --verify and --repair beside a running daemon', () => {
  it('refuse with one line, and --repair copies and changes nothing', async () => {
    const d = await startDaemon();
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'busy', content: 'a fact the daemon holds' });
    for (const [flag, verb] of [['--verify', 'verify'], ['--repair', 'repair']] as const) {
      const run = await spawnDaemon({ dataDir: d.dataDir, args: [flag], wait: 'exit', timeoutMs: 10_000, logLevel: null });
      assert.equal(run.exit()?.code, 1, run.stderr());
      assert.match(run.lastStderrLine(), new RegExp(`^memoryd: cannot ${verb}: data dir .* is in use by a running memoryd: stop it first$`));
    }
    assert.deepEqual(readdirSync(d.dataDir).filter((n) => n.startsWith('store.') || n.startsWith('.memoryd')), [], 'no copy, no lock dir left');
    assert.equal((await c.ok(MemoryList, { agentId: 'busy' })).facts.length, 1);
    c.socket.destroy();
    await d.stop();
  });
});

describe('--index-memory', () => {
  const bad: Array<[string, string[], RegExp]> = [
    ['not a number', ['--index-memory', 'lots'], /--index-memory must be a whole number/],
    ['zero', ['--index-memory', '0'], /--index-memory must be at least 1/],
    ['past a TiB', ['--index-memory', '1048577'], /--index-memory must be at most 1048576/],
  ];
  itRefusesAsUsage(bad);

  it('is read from MEMORYD_INDEX_MEMORY_MIB when the flag is absent', () => assertUsageError({ env: { MEMORYD_INDEX_MEMORY_MIB: 'half' } }, /--index-memory must be a whole number, got "half"/));
});

describe('flags removed before the first release', () => {
  // Nothing was released with them (docs/api-stability.md): a removed flag is an unknown one.
  itRefusesAsUsage([
    ['--busy-poll-us', ['--busy-poll-us', '200'], /--busy-poll-us/],
    ['--warm-up-ms', ['--warm-up-ms', '1500'], /--warm-up-ms/],
  ]);
});

describe('--store and --pg-url-file', () => {
  const bad: Array<[string, string[], RegExp]> = [
    ['an unknown store', ['--store', 'sqlite'], /--store must be one of level, postgres, got "sqlite"/],
    ['a URL file for LevelDB', ['--pg-url-file', '/tmp/url'], /--pg-url-file needs --store postgres/],
    ['--verify of PostgreSQL', ['--store', 'postgres', '--verify'], /--verify checks a LevelDB store; a PostgreSQL database is checked and backed up with its own tools/],
    ['--repair of PostgreSQL', ['--store', 'postgres', '--repair'], /--repair checks a LevelDB store/],
    ['a PostgreSQL timeout on LevelDB', ['--pg-lock-timeout', '3'], /--pg-lock-timeout needs --store postgres/],
    ['a timeout that is no number', ['--store', 'postgres', '--pg-connect-timeout', 'soon'], /--pg-connect-timeout must be a number of seconds, got "soon"/],
    ['a timeout out of range', ['--store', 'postgres', '--pg-statement-timeout', '0.01'], /--pg-statement-timeout must be 0.1 to 86400 seconds/],
    ['--no-sync on PostgreSQL', ['--store', 'postgres', '--no-sync'], /--no-sync is for the LevelDB store/],
  ];
  itRefusesAsUsage(bad);

  it('is read from MEMORYD_STORE when the flag is absent', () => assertUsageError({ env: { MEMORYD_STORE: 'mongo' } }, /--store must be one of level, postgres, got "mongo"/));
  it('names a PostgreSQL timeout variable given without --store postgres', () =>
    assertUsageError({ env: { MEMORYD_PG_LOCK_TIMEOUT: '3' } }, /--pg-lock-timeout needs --store postgres/));
  it('names MEMORYD_NO_SYNC given with MEMORYD_STORE=postgres', () =>
    assertUsageError({ env: { MEMORYD_STORE: 'postgres', MEMORYD_NO_SYNC: '1' } }, /MEMORYD_NO_SYNC is for the LevelDB store/));
  it('takes the URL file from MEMORYD_PG_URL_FILE', () => assertUsageError({ env: { MEMORYD_PG_URL_FILE: '/tmp/url' } }, /--pg-url-file needs --store postgres/));
});
