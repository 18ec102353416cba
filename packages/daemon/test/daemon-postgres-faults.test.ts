// Issue 30: memoryd --store postgres when the server fails, black box.
// A server of the test's own (fsync on) restarted fast and immediate, and
// stopped for seconds, under four writers and an open export: the daemon
// lives, requests fail fast with -32010 during the outage, health says
// `unavailable: CAUSE` and then `ok`, writes are acknowledged again
// within 10 s, and every acknowledged write is there. A server that
// accepts and never answers, a table lock and the migration lock held by
// someone else: every wait bounded, a start failure one line. Twelve
// exports at once leave requests their connections. A newer daemon
// migrating the schema under a running one turns it read-only, saying
// why. Skipped, saying so, without a server (PGHOST, PGDATABASE).
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, it } from 'node:test';
import pg from 'pg';
import { AdminExport, AdminImport, DaemonStatus, MemoryAdd, MemoryList } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, makeUlid, spawnDaemon, startDaemon, waitFor } from '@memoryd/test-support';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP, pgAdmin, privateServer } from './helpers/postgres.js';
import { listedFacts } from './helpers/read-all.js';
import { type RpcClient, type RpcResponse, connect } from './helpers/rpc.js';

/** Options of a daemon on PostgreSQL, its tables in `schema`. */
function onSchema(schema: string, extra: string[] = [], env: Record<string, string | undefined> = {}): Parameters<typeof startDaemon>[0] {
  return { args: ['--store', 'postgres', ...extra], env: { PGOPTIONS: `-c search_path=${schema}`, ...env }, logLevel: 'info' };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls daemon.status until `health` matches, within `ms`; the last one seen. */
async function healthWithin(c: RpcClient, pattern: RegExp, ms: number): Promise<string> {
  const until = Date.now() + ms;
  let health = '';
  while (Date.now() < until) {
    health = (await c.ok(DaemonStatus, {})).health;
    if (pattern.test(health)) return health;
    await sleep(100);
  }
  return health;
}

describeUnless(PG_SKIP, 'memoryd --store postgres under faults', () => {
  after(async () => {
    await cleanupAll();
    await dropSchemas();
  });

  it('lives through restarts and a stop under writes and an open export, losing nothing acknowledged', { timeout: 115_000 }, async () => {
    const server = await privateServer();
    let d: DaemonHandle | undefined;
    let stop = false;
    let running: Promise<void>[] = [];
    try {
      d = await startDaemon({ args: ['--store', 'postgres', '--pg-connect-timeout', '2'], env: server.env, logLevel: 'info' });
      const writers = await Promise.all([0, 1, 2, 3].map(() => connect(d!.socket)));
      const watcher = await connect(d.socket);
      const agentId = 'faults';
      const acknowledged = new Map<string, string>();
      const failures: { code: number; ms: number; message: string }[] = [];
      let n = 0;
      const write = async (c: RpcClient): Promise<void> => {
        while (!stop) {
          const content = `fact number ${n++} written under faults`;
          const t0 = Date.now();
          const r = await c.call('memory.add', { agentId, content }, 20_000);
          if (r.error !== undefined) {
            failures.push({ code: r.error.code, ms: Date.now() - t0, message: r.error.message });
            await sleep(20);
          } else acknowledged.set((r.result as { factId: string }).factId, content);
        }
      };
      /** Time from `since` until an add is acknowledged again. */
      const backWithin = async (since: number): Promise<number> => {
        const until = since + 10_000;
        while (Date.now() < until) {
          const r = await watcher.call('memory.add', { agentId: 'probe', content: `probe ${Date.now()} ${Math.random()}` }, 10_000);
          if (r.error === undefined) return Date.now() - since;
          await sleep(50);
        }
        return Infinity;
      };
      running = writers.map(write);

      for (const fault of ['restart fast', 'restart immediate', 'stop for 3 s'] as const) {
        // An export open across the fault: its snapshot's connection goes with the server.
        for (let i = 0; i < 3; i++) await watcher.ok(MemoryAdd, { agentId: 'exported', content: `exported ${fault} ${i}` });
        const first = await watcher.ok(AdminExport, { agentId: 'exported', limit: 1 });
        assert.ok(first.cursor !== undefined);
        await sleep(300);
        const failedBefore = failures.length;
        if (fault === 'stop for 3 s') {
          await server.halt('fast');
          // Bounded only against a hang: the server stays down until the test starts it.
          const during = await healthWithin(watcher, /^unavailable: /, 20_000);
          assert.match(during, /^unavailable: /, 'health while the server is stopped');
          await sleep(3_000 - 0);
          await server.start();
        } else {
          await server.restart(fault === 'restart fast' ? 'fast' : 'immediate');
        }
        const back = await backWithin(Date.now());
        assert.ok(back <= 10_000, `${fault}: writes acknowledged again ${back} ms after the server was back`);
        assert.equal(await healthWithin(watcher, /^ok$/, 10_000), 'ok', `${fault}: health is ok again`);
        assert.equal(d.exit(), undefined, `${fault}: the daemon lives`);
        // The export either goes on or ends with a clear error; a new one works.
        const next = await watcher.call('admin.export', { cursor: first.cursor }, 10_000);
        if (next.error !== undefined) assert.ok([-32010, -32602].includes(next.error.code), JSON.stringify(next.error));
        const again = await watcher.ok(AdminExport, { agentId: 'exported', limit: 1000 });
        assert.ok(again.records.length >= 3);
        assert.ok(failures.length >= failedBefore, `${fault}: requests during the outage`);
      }
      stop = true;
      await Promise.all(running);

      for (const f of failures) {
        assert.equal(f.code, -32010, f.message);
        assert.ok(f.ms < 5_000, `a request during the outage answered in ${f.ms} ms: ${f.message}`);
      }
      const stored = await listedFacts(watcher, agentId);
      const missing = [...acknowledged].filter(([id, content]) => stored.get(id) !== content);
      assert.deepEqual(missing, [], `every acknowledged write is stored (${acknowledged.size} acknowledged, ${failures.length} failed)`);
      assert.ok(acknowledged.size > 100);
      await Promise.all([...writers, watcher].map((c) => c.close()));
      await d.stop();
    } finally {
      // The writers first, so that a failed assertion is what the test reports.
      stop = true;
      await Promise.allSettled(running);
      await d?.kill().catch(() => undefined);
      await server.remove();
    }
  });

  it('says read-only while the server refuses writes, and ok once it takes them again', { timeout: 60_000 }, async () => {
    const server = await privateServer();
    let d: DaemonHandle | undefined;
    try {
      d = await startDaemon({ args: ['--store', 'postgres'], env: server.env, logLevel: 'info' });
      const c = await connect(d.socket);
      await c.ok(MemoryAdd, { agentId: 'ro', content: 'written before' });
      const admin = async (sql: string): Promise<void> => {
        const client = new pg.Client({ host: server.env['PGHOST'], port: Number(server.env['PGPORT']), user: server.env['PGUSER'], database: server.env['PGDATABASE'] });
        await client.connect();
        try {
          await client.query(sql);
          await client.query('SELECT pg_reload_conf()');
        } finally {
          await client.end();
        }
      };
      await admin('ALTER SYSTEM SET default_transaction_read_only = on');
      // Each server process takes the new default at its next command after the reload.
      let refused = await c.call('memory.add', { agentId: 'ro', content: 'written while read-only' });
      for (let i = 0; i < 50 && refused.error === undefined; i++) {
        await sleep(100);
        refused = await c.call('memory.add', { agentId: 'ro', content: `written while read-only ${i}` });
      }
      assert.equal(refused.error?.code, -32010);
      assert.match(refused.error!.message, /read-only: the server accepts no writes/);
      assert.match((await c.ok(DaemonStatus, {})).health, /^read-only: the server accepts no writes/);
      assert.ok((await c.ok(MemoryList, { agentId: 'ro' })).facts.length >= 1, 'reads are served meanwhile');
      await admin('ALTER SYSTEM RESET default_transaction_read_only');
      assert.equal(await healthWithin(c, /^ok$/, 10_000), 'ok');
      await c.ok(MemoryAdd, { agentId: 'ro', content: 'written after' });
      await c.close();
      await d.stop();
    } finally {
      await d?.kill().catch(() => undefined);
      await server.remove();
    }
  });

  it('stores no duplicate when updates race adds and each other, and retries deadlocks', { timeout: 110_000 }, async () => {
    const schema = await freshSchema();
    const d = await startDaemon(onSchema(schema));
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(d.socket)));
    const agentId = 'races';
    const N = 300;
    const add = async (i: number, content: string): Promise<string> => (await clients[i % 8]!.ok(MemoryAdd, { agentId, content })).factId;
    const errors: string[] = [];
    const attempt = async (i: number, method: string, params: unknown): Promise<void> => {
      const r = await clients[i % 8]!.call(method, params, 30_000);
      if (r.error !== undefined) errors.push(`${method}: ${r.error.message}`);
    };
    // An update to T racing an add of T, and two updates to the same T.
    const sources = await Promise.all(Array.from({ length: N }, (_, i) => Promise.all([add(i, `source a ${i}`), add(i + 1, `source b ${i}`)])));
    await Promise.all(
      sources.flatMap(([a, b], i) => [
        attempt(i, 'memory.reflect', { agentId, action: 'update', factId: a, content: `target ${i}` }),
        attempt(i + 1, 'memory.add', { agentId, content: `target ${i}` }),
        attempt(i + 2, 'memory.reflect', { agentId, action: 'update', factId: b, content: `target ${i}` }),
      ]),
    );
    // Two updates that swap texts.
    const pairs = await Promise.all(Array.from({ length: 200 }, (_, i) => Promise.all([add(i, `swap left ${i}`), add(i + 3, `swap right ${i}`)])));
    await Promise.all(
      pairs.flatMap(([l, r], i) => [
        attempt(i, 'memory.reflect', { agentId, action: 'update', factId: l, content: `swap right ${i}` }),
        attempt(i + 5, 'memory.reflect', { agentId, action: 'update', factId: r, content: `swap left ${i}` }),
      ]),
    );
    const stored = [...(await listedFacts(clients[0]!, agentId)).values()];
    const twice = stored.filter((text, i) => stored.indexOf(text) !== i);
    assert.deepEqual(twice, [], 'no text is stored twice');
    for (let i = 0; i < N; i++) assert.ok(stored.includes(`target ${i}`), `target ${i} is stored`);
    const calls = 3 * N + 2 * 200;
    assert.ok(errors.length < calls / 100, `${errors.length} of ${calls} failed: ${errors.slice(0, 5).join('; ')}`);
    // Two current facts of one text (an import may bring them) deleted at once: the text is free after.
    const twins = 40;
    const at = Date.UTC(2024, 0, 1);
    const records = Array.from({ length: 2 * twins }, (_, i) => ({
      type: 'fact', agentId, id: makeUlid(at + i, i), content: `twin text ${Math.floor(i / 2)}`, createdAt: new Date(at + i).toISOString(),
    }));
    assert.equal((await clients[0]!.ok(AdminImport, { records })).imported, 2 * twins);
    await Promise.all(records.map((r, i) => attempt(i, 'memory.reflect', { agentId, action: 'delete', factId: r.id })));
    assert.ok(errors.length < (calls + 2 * twins) / 100, `${errors.length} of ${calls + 2 * twins} failed: ${errors.slice(0, 5).join('; ')}`);
    for (let t = 0; t < twins; t++) {
      const again = await clients[0]!.ok(MemoryAdd, { agentId, content: `twin text ${t}` });
      assert.equal(again.duplicate, undefined, `twin text ${t} is free once both its facts are deleted`);
    }
    const rows = await pgAdmin(async (a) => (await a.query(`SELECT count(*)::int AS n FROM ${schema}.facts f WHERE dedup_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${schema}.dedup_claims c WHERE c.agent_id = f.agent_id AND c.dedup_key = f.dedup_key)`)).rows[0].n);
    assert.equal(rows, 0, 'every current fact\'s text is claimed');
    const stale = await pgAdmin(async (a) => (await a.query(`SELECT count(*)::int AS n FROM ${schema}.dedup_claims c JOIN ${schema}.facts f ON f.agent_id = c.agent_id AND f.id = c.fact_id WHERE f.dedup_key IS NULL`)).rows[0].n);
    assert.equal(stale, 0, 'no claim names a fact that is not current');
    await Promise.all(clients.map((c) => c.close()));
    await d.stop();
  });

  it('bounds the start against a server that accepts and never answers, in one line', { timeout: 30_000 }, async () => {
    const held: Socket[] = [];
    const silent = createServer((s) => held.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const t0 = Date.now();
      const d = await spawnDaemon({
        args: ['--store', 'postgres', '--pg-connect-timeout', '1'],
        env: { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: 'nobody', PGDATABASE: 'none' },
        logLevel: 'error',
        wait: 'exit',
        timeoutMs: 15_000,
      });
      assert.ok(Date.now() - t0 < 10_000, `gave up after ${Date.now() - t0} ms`);
      assert.notEqual(d.exit()?.code, 0);
      const lines = d.stderr().split('\n').filter((l) => l.trim() !== '');
      assert.equal(lines.length, 1, d.stderr());
      assert.match(lines[0]!, /^memoryd: cannot start: connect to PostgreSQL: .*timeout/);
      assert.ok(held.length > 0, 'the daemon reached the silent server');
    } finally {
      for (const s of held) s.destroy();
      silent.close();
    }
  });

  it('bounds every wait on a lock someone else holds: a table, the migration lock', { timeout: 60_000 }, async () => {
    const schema = await freshSchema();
    const d = await startDaemon(onSchema(schema, ['--pg-lock-timeout', '1']));
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'locks', content: 'before the lock' });
    await pgAdmin(async (admin) => {
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE ${schema}.facts IN ACCESS EXCLUSIVE MODE`);
      for (const [method, params] of [
        ['memory.add', { agentId: 'locks', content: 'while the table is locked' }],
        ['memory.search', { agentId: 'locks', query: 'lock' }],
      ] as const) {
        // Answered while the lock is still held (it goes only at the COMMIT below), by the lock
        // timeout: the wait was bounded. The call's own bound only guards against a hang.
        const r = await c.call(method, params, 20_000);
        assert.equal(r.error?.code, -32010, `${method}: ${JSON.stringify(r)}`);
        assert.match(r.error!.message, /lock timeout/);
      }
      await admin.query('COMMIT');
    });
    await c.ok(MemoryAdd, { agentId: 'locks', content: 'after the lock' });
    await c.close();
    await d.stop();

    // The migration lock, held by another session: the start says who holds it, in one line.
    const fresh = await freshSchema();
    await pgAdmin(async (admin) => {
      await admin.query('SELECT pg_advisory_lock($1)', [0x6d656d6f727964n.toString()]);
      const { rows } = await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const t0 = Date.now();
      const refused = await spawnDaemon({ ...onSchema(fresh, ['--pg-lock-timeout', '1']), logLevel: 'error', wait: 'exit', timeoutMs: 15_000 });
      assert.ok(Date.now() - t0 < 8_000);
      const lines = refused.stderr().split('\n').filter((l) => l.trim() !== '');
      assert.equal(lines.length, 1, refused.stderr());
      assert.match(lines[0]!, new RegExp(`cannot start: could not take the schema migration lock .*server process ${rows[0]!.pid}`));
    });
  });

  it('leaves requests their connections while twelve exports are open', { timeout: 60_000 }, async () => {
    const schema = await freshSchema();
    // The daemon's connections carry this name, so that the test sees its export snapshots in pg_stat_activity.
    const app = `memoryd-exports-${schema}`;
    const snapshots = (): Promise<number[]> =>
      pgAdmin(async (a) => {
        const { rows } = await a.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction' ORDER BY pid`,
          [app],
        );
        return rows.map((r) => r.pid);
      });
    // Cursors kept the default 60 s: every export opened stays open for what follows.
    let d = await startDaemon(onSchema(schema, [], { PGAPPNAME: app }));
    let c = await connect(d.socket);
    for (let i = 0; i < 3; i++) await c.ok(MemoryAdd, { agentId: 'exports', content: `exported fact ${i}` });
    let exporters = await Promise.all(Array.from({ length: 12 }, () => connect(d.socket)));
    // Twelve exports asked for at once, and an add once they hold what they got: answered, while they held it throughout.
    const opened = await Promise.all(exporters.map((e) => e.call('admin.export', { limit: 1 }, 10_000)));
    const held = await snapshots();
    await c.ok(MemoryAdd, { agentId: 'exports', content: 'an add while exports are open' });
    assert.deepEqual(await snapshots(), held, 'the add was served while the exports held their connections');
    // Four of them open, each holding a connection of its own and its snapshot.
    const cursors = opened.filter((r) => r.error === undefined);
    const refused = opened.filter((r) => r.error !== undefined);
    assert.equal(cursors.length, 4, 'four exports open at once');
    assert.equal(held.length, 4, 'four snapshots held');
    for (const r of refused) {
      assert.equal(r.error!.code, -32010);
      assert.match(r.error!.message, /exports are open/);
    }
    await Promise.all(exporters.map((e) => e.close()));
    await c.close();
    await d.stop();

    // Cursors that expire after 1 s idle: their clients go, the idle timeout closes their snapshots, and a new export opens.
    d = await startDaemon(onSchema(schema, ['--export-cursor-ttl', '1000'], { PGAPPNAME: app }));
    c = await connect(d.socket);
    exporters = await Promise.all(Array.from({ length: 4 }, () => connect(d.socket)));
    for (const r of await Promise.all(exporters.map((e) => e.call('admin.export', { limit: 1 }, 10_000)))) assert.equal(r.error, undefined, JSON.stringify(r.error));
    await Promise.all(exporters.map((e) => e.close()));
    // Asked until it opens (four open exports refuse it): an export that never expired fails this wait.
    let again: RpcResponse | undefined;
    await waitFor(
      async () => (again = await c.call('admin.export', { agentId: 'exports', limit: 100 }, 10_000)).error === undefined,
      20_000,
      'a new export to open once the idle ones expired',
    );
    assert.equal((again!.result as { records: unknown[] }).records.length, 4);
    await waitFor(async () => (await snapshots()).length === 0, 20_000, 'no snapshot left open');
    await c.close();
    await d.stop();
  });

  it('never reads a search as tsquery syntax, whatever letters it holds', { timeout: 60_000 }, async () => {
    const schema = await freshSchema();
    const d = await startDaemon(onSchema(schema));
    const c = await connect(d.socket);
    // Every letter and digit that unaccent turns into something else than letters and digits.
    const candidates: string[] = [];
    for (let cp = 0xa0; cp < 0x30000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (/^[\p{L}\p{N}]$/u.test(ch)) candidates.push(ch);
    }
    const turned = await pgAdmin(async (a) => {
      const { rows } = await a.query<{ ch: string; out: string }>(
        `SELECT ch, ${schema}.memoryd_unaccent(ch) AS out FROM unnest($1::text[]) AS ch`,
        [candidates],
      );
      return rows.filter((r) => !/^[\p{L}\p{N}]*$/u.test(r.out)).map((r) => r.ch);
    });
    assert.ok(turned.length >= 20, `${turned.length} letters unaccent to other characters`);
    await c.ok(MemoryAdd, { agentId: 'tsq', content: 'ʻOhana means family' });
    for (const ch of turned) {
      for (const query of [`${ch}word`, `word ${ch}`, `${ch}pre*`]) {
        const r = await c.call('memory.search', { agentId: 'tsq', query });
        assert.equal(r.error, undefined, `${query} (U+${ch.codePointAt(0)!.toString(16)}): ${JSON.stringify(r.error)}`);
      }
    }
    const r = await c.call('memory.search', { agentId: 'tsq', query: 'ʻOhana' });
    assert.equal((r.result as { facts: { content: string }[] }).facts[0]?.content, 'ʻOhana means family');
    await c.close();
    await d.stop();
  });

  it('turns read-only, saying why, when a newer daemon migrates the schema under it', { timeout: 60_000 }, async () => {
    const schema = await freshSchema();
    const d = await startDaemon(onSchema(schema));
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'newer', content: 'written by this daemon' });
    // What a newer daemon's migration 6 might do: rename a column and record itself.
    await pgAdmin(async (a) => {
      await a.query(`ALTER TABLE ${schema}.facts RENAME COLUMN tags TO labels`);
      await a.query(`INSERT INTO ${schema}.memoryd_migrations (version, record_format, daemon_version) VALUES (6, 1, '99.0.0')`);
    });
    const r = await c.call('memory.add', { agentId: 'newer', content: 'written after the migration' });
    assert.equal(r.error?.code, -32010);
    assert.match(r.error!.message, /read-only: the database's schema is at version 6, newer than this daemon's 5/);
    const status = await c.ok(DaemonStatus, {});
    assert.match(status.health, /^read-only: the database's schema is at version 6/);
    const again = await c.call('memory.add', { agentId: 'newer', content: 'another write' });
    assert.match(again.error?.message ?? '', /read-only/);
    assert.equal(d.exit(), undefined);
    await c.close();
    await d.stop();
  });
});
