// Issue 16: memoryd --store postgres, black box. Two daemons on two
// sockets over one database, 4 clients each: 2,000 adds (a tenth the
// same texts on both sides) and 200 updates lose no acknowledged write,
// store no text twice, and every fact is found by search from either
// daemon. A database a newer daemon migrated is refused at start with
// one line; --pg-url-file reads the connection from a file. Skipped,
// saying so, without a server (PGHOST, PGDATABASE; .ci/run starts one).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { DaemonStatus, MemoryAdd, MemoryList, MemoryReflect, MemorySearch } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, spawnDaemon, startDaemon, tempDir } from '@memoryd/test-support';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP, pgAdmin } from './helpers/postgres.js';
import { type RpcClient, connect } from './helpers/rpc.js';

/** A daemon on PostgreSQL, its tables in `schema`. */
function onSchema(schema: string, extra: string[] = []): Parameters<typeof startDaemon>[0] {
  return { args: ['--store', 'postgres', ...extra], env: { PGOPTIONS: `-c search_path=${schema}` }, logLevel: 'info' };
}

describeUnless(PG_SKIP, 'memoryd --store postgres', () => {
  after(async () => {
    await cleanupAll();
    await dropSchemas();
  });

  it('two daemons on one database lose no write and store no text twice', { timeout: 110_000 }, async () => {
    const schema = await freshSchema();
    const daemons: DaemonHandle[] = [await startDaemon(onSchema(schema)), await startDaemon(onSchema(schema))];
    const clients: RpcClient[][] = await Promise.all(daemons.map((d) => Promise.all([0, 1, 2, 3].map(() => connect(d.socket)))));
    const agentId = 'shared';
    const ADDS = 1_000; // per daemon
    const textOf = (side: number, i: number) => (i % 10 === 0 ? `a shared fact, number ${i}` : `daemon ${side} fact, number ${i}`);
    const acknowledged = new Map<string, string>();
    const conflicts: string[] = [];
    await Promise.all(
      [0, 1].flatMap((side) =>
        [0, 1, 2, 3].map(async (w) => {
          for (let i = w; i < ADDS; i += 4) {
            const text = textOf(side, i);
            const { factId } = await clients[side]![w]!.ok(MemoryAdd, { agentId, content: text });
            const before = acknowledged.get(text);
            if (before !== undefined && before !== factId) conflicts.push(`${text}: ${before} and ${factId}`);
            acknowledged.set(text, factId);
          }
        }),
      ),
    );
    assert.deepEqual(conflicts, []);
    assert.equal(acknowledged.size, 2 * ADDS - ADDS / 10);

    const texts = [...acknowledged.keys()].filter((t) => t.startsWith('daemon')).slice(0, 200);
    await Promise.all(
      texts.map(async (text, i) => {
        const { supersededBy } = await clients[i % 2]![i % 4]!.ok(MemoryReflect, { agentId, action: 'update', factId: acknowledged.get(text)!, content: `${text}, revised` });
        acknowledged.delete(text);
        acknowledged.set(`${text}, revised`, supersededBy!);
      }),
    );

    for (const side of [0, 1]) {
      const c = clients[side]![0]!;
      const listed = new Map<string, string>();
      let after: string | undefined;
      do {
        const page = await c.ok(MemoryList, { agentId, limit: 100, ...(after === undefined ? {} : { after }) });
        for (const f of page.facts) {
          assert.equal(listed.has(f.content), false, `${f.content} stored once`);
          listed.set(f.content, f.id);
        }
        after = page.next;
      } while (after !== undefined);
      assert.deepEqual(listed, acknowledged, `daemon ${side} lists every acknowledged write`);
      const status = await c.ok(DaemonStatus, {});
      assert.equal(status.facts, acknowledged.size);
      for (const [text, id] of [...acknowledged].filter((_, i) => i % 41 === 0)) {
        const { facts } = await c.ok(MemorySearch, { agentId, query: text, limit: 100 });
        assert.ok(facts.some((f) => f.id === id), `daemon ${side} finds ${text}`);
      }
    }
    await Promise.all(clients.flat().map((c) => c.close()));
  });

  it('keeps each daemon\'s search index in step with every other writer', { timeout: 60_000 }, async () => {
    const schema = await freshSchema();
    const [a, b] = [await startDaemon(onSchema(schema)), await startDaemon(onSchema(schema))];
    const [ca, cb] = [await connect(a.socket), await connect(b.socket)];
    const agentId = 'in-step';
    await ca.ok(MemoryAdd, { agentId, content: 'the first fact, before any search' });
    /** Polls b's search for `query` until `want` holds, within 5 s. */
    const seenByB = async (query: string, want: (ids: string[]) => boolean): Promise<string[]> => {
      const until = Date.now() + 5_000;
      let ids: string[] = [];
      while (Date.now() < until) {
        ids = (await cb.ok(MemorySearch, { agentId, query })).facts.map((f) => f.id);
        if (want(ids)) return ids;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return ids;
    };
    // b loads its index on this search, then hears of a's writes.
    assert.equal((await cb.ok(MemorySearch, { agentId, query: 'first' })).facts.length, 1);
    const { factId } = await ca.ok(MemoryAdd, { agentId, content: 'zebras migrate across the Serengeti' });
    assert.deepEqual(await seenByB('zebras', (ids) => ids.includes(factId)), [factId], 'an add by another daemon');
    const { supersededBy } = await ca.ok(MemoryReflect, { agentId, action: 'update', factId, content: 'wildebeest migrate across the Serengeti' });
    assert.deepEqual(await seenByB('zebras', (ids) => ids.length === 0), [], 'the old version, gone');
    assert.deepEqual(await seenByB('wildebeest', (ids) => ids.includes(supersededBy!)), [supersededBy], 'the new version');
    await ca.ok(MemoryReflect, { agentId, action: 'delete', factId: supersededBy! });
    assert.deepEqual(await seenByB('wildebeest', (ids) => ids.length === 0), [], 'a delete');
    // A row written by hand is announced by the trigger as well.
    await pgAdmin(async (c) => {
      await c.query(`SET search_path = ${schema}`);
      await c.query(`INSERT INTO ${schema}.facts (agent_id, id, content, created_at, dedup_key) VALUES ($1, '01JEXAMPQE0000000000000000', 'okapis live in the Ituri forest', '2026-01-01T00:00:00.000Z', 'by-hand')`, [agentId]);
    });
    assert.deepEqual(await seenByB('okapis', (ids) => ids.length === 1), ['01JEXAMPQE0000000000000000'], 'a row written by hand');
    // b's listening connection goes: b searches by SQL until it listens again, and misses nothing.
    await pgAdmin((c) => c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"));
    const { factId: late } = await ca.ok(MemoryAdd, { agentId, content: 'giraffes sleep standing up' });
    assert.deepEqual(await seenByB('giraffes', (ids) => ids.includes(late)), [late], 'a write while b was not listening');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { factId: after } = await ca.ok(MemoryAdd, { agentId, content: 'giraffes have blue tongues' });
    assert.deepEqual(new Set(await seenByB('giraffes', (ids) => ids.length === 2)), new Set([late, after]), 'and after it listens again');
    assert.equal(b.exit(), undefined);
    await Promise.all([ca.close(), cb.close()]);
  });

  it('refuses at start a database a newer daemon migrated', async () => {
    const schema = await freshSchema();
    const first = await startDaemon(onSchema(schema));
    await first.stop();
    await pgAdmin((c) => c.query(`INSERT INTO ${schema}.memoryd_migrations (version, record_format, daemon_version) VALUES (99, 1, '99.0.0')`));
    const refused = await spawnDaemon({ ...onSchema(schema), wait: 'exit' });
    assert.notEqual(refused.exit()?.code, 0);
    assert.match(refused.stderr(), /schema is at version 99, newer than this daemon's 5/);
  });

  it('reads the connection from --pg-url-file, and refuses a file without a URL', async () => {
    const schema = await freshSchema();
    const dir = tempDir('mdpg-');
    const file = join(dir, 'pg-url');
    const host = encodeURIComponent(process.env['PGHOST'] ?? '/var/run/postgresql');
    const url = `postgresql://${process.env['PGUSER'] ?? 'postgres'}@/${process.env['PGDATABASE'] ?? 'memoryd_test'}?host=${host}&port=${process.env['PGPORT'] ?? '5432'}`;
    writeFileSync(file, `${url}\n`, { mode: 0o600 });
    const d = await startDaemon({ ...onSchema(schema, ['--pg-url-file', file]), env: { PGOPTIONS: `-c search_path=${schema}`, PGHOST: undefined, PGDATABASE: undefined } });
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'url', content: 'reached through the URL file' });
    await c.close();
    assert.equal(await pgAdmin(async (a) => (await a.query(`SELECT count(*)::int AS n FROM ${schema}.facts`)).rows[0].n), 1);
    writeFileSync(file, 'not a url\n', { mode: 0o600 });
    const refused = await spawnDaemon({ ...onSchema(schema, ['--pg-url-file', file]), wait: 'exit' });
    assert.notEqual(refused.exit()?.code, 0);
    assert.match(refused.stderr(), /must hold a postgresql:\/\/ URL/);
  });

  it('reads no search index image: its data dir is not LevelDB\'s', async () => {
    const schema = await freshSchema();
    // An image of a LevelDB daemon's that used this data dir before: 96 MB nobody should read.
    const dataDir = join(tempDir('mdpg-'), 'data');
    mkdirSync(join(dataDir, 'search'), { recursive: true });
    writeFileSync(join(dataDir, 'search', '0123456789abcdef0123456789abcdef.index'), Buffer.alloc(96 * 1024 * 1024, 1));
    const d = await startDaemon({ ...onSchema(schema), dataDir, logLevel: 'debug' });
    const c = await connect(d.socket);
    await c.ok(MemoryAdd, { agentId: 'pg', content: 'a fact in the database' });
    assert.equal((await c.ok(MemorySearch, { agentId: 'pg', query: 'database' })).facts.length, 1);
    // Every byte the process read through a syscall, its own code included.
    const rchar = Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${d.pid}/io`, 'utf8'))?.[1]);
    assert.ok(rchar < 64 * 1024 * 1024, `read ${rchar} bytes`);
    await c.close();
    await d.stop();
    assert.doesNotMatch(d.stderr(), /search index image/);
  });
});
