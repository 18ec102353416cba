// --warm-up-ms (ADR 0022): after the start, while no request waits, the
// daemon runs its search code on made-up facts so that V8 compiles it
// before a user's first searches come; it writes nothing, waits while
// requests keep coming (but takes a share of bulk imports), and never
// runs with 0. (cleanEnv turns it off for
// the other suites; these turn it back on.)
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AdminImport, DaemonHello, DaemonStatus, type ExportRecord } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, startDaemon, waitFor } from '@memoryd/test-support';
import { connect } from './helpers/rpc.js';
import { makeUlid } from './helpers/shapes.js';

after(cleanupAll);

/** The default warm-up: MEMORYD_WARM_UP_MS removed from the environment cleanEnv makes. */
const DEFAULT = { env: { MEMORYD_WARM_UP_MS: undefined } };

/** The daemon's "search code warmed up" log line, parsed, or undefined. */
function warmedUp(d: DaemonHandle): Record<string, unknown> | undefined {
  const line = d.stderr().split('\n').find((l) => l.includes('"search code warmed up"'));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

describe('search warm-up', () => {
  it('runs on made-up facts while the daemon is idle, within its budget, and writes nothing', async () => {
    const d = await startDaemon(DEFAULT);
    await waitFor(() => warmedUp(d) !== undefined, 60_000, 'the warm-up to end');
    const done = warmedUp(d)!;
    assert.equal(done['facts'], 10_000, JSON.stringify(done));
    // All its searches, or cut short by the 1.5 s budget on a slow machine.
    assert.ok(done['searches'] === 3_000 || done['cutShort'] === true, JSON.stringify(done));
    assert.ok((done['workMs'] as number) > 0 && (done['workMs'] as number) < 1_500 + 100, JSON.stringify(done));
    const c = await connect(d.socket);
    const status = await c.ok(DaemonStatus, {});
    assert.deepEqual([status.facts, status.agents, status.checkpoints], [0, 0, 0]);
    await c.close();
    await d.stop();
    // No image of the made-up index either: only agents' indexes have one.
    const images = join(d.dataDir, 'search');
    assert.deepEqual(existsSync(images) ? readdirSync(images) : [], []);
  });

  it('waits while requests keep coming, and runs once they stop', async () => {
    const d = await startDaemon(DEFAULT);
    const c = await connect(d.socket);
    // Back to back for 3 s: the gaps between requests are far below the
    // 100 ms of quiet a slice waits for, so the warm-up (some 1 s of work)
    // cannot get through, whatever it managed before the first request.
    const until = Date.now() + 3_000;
    while (Date.now() < until) await c.ok(DaemonHello, { client: 'warm-up test' });
    assert.equal(warmedUp(d), undefined, 'the warm-up ended while requests kept coming');
    await waitFor(() => warmedUp(d) !== undefined, 60_000, 'the warm-up to end once requests stopped');
    await c.close();
  });

  it('takes a share of bulk imports that keep coming, and is done within them', async () => {
    // 10 µs of warm-up per record imported: a budget of 100 ms is lent in
    // 10 calls of 1,000. Back to back on one connection, the gaps between
    // calls are far below the 100 ms of quiet an idle slice waits for (the
    // hello test above), so only the imports' share can end it.
    const d = await startDaemon({ env: { MEMORYD_WARM_UP_MS: '100' } });
    const c = await connect(d.socket);
    const record = (i: number): ExportRecord => ({
      type: 'fact',
      agentId: 'warm-up-import',
      id: makeUlid(1_600_000_000_000 + i, i),
      content: `imported fact number ${i}`,
      createdAt: new Date(1_600_000_000_000 + i).toISOString(),
    });
    let calls = 0;
    for (; calls < 40 && warmedUp(d) === undefined; calls++) {
      const records = Array.from({ length: 1_000 }, (_, j) => record(calls * 1_000 + j));
      const r = await c.ok(AdminImport, { records });
      assert.equal(r.imported, 1_000);
    }
    const done = warmedUp(d);
    assert.ok(done !== undefined, `the warm-up did not end within ${calls} imports of 1,000 records`);
    // Cut short by its budget (some 10 calls' share, less what it ran
    // before the first import came), well before its 10,000 facts and
    // 3,000 searches.
    assert.equal(done['cutShort'], true, JSON.stringify(done));
    await c.close();
  });

  it('never runs with --warm-up-ms 0', async () => {
    const [on, off] = await Promise.all([startDaemon(DEFAULT), startDaemon({ ...DEFAULT, args: ['--warm-up-ms', '0'] })]);
    // Both idle alike: by the time one has warmed up, the other would have.
    await waitFor(() => warmedUp(on) !== undefined, 60_000, 'the default warm-up to end');
    assert.equal(warmedUp(off), undefined, off.stderr());
  });
});
