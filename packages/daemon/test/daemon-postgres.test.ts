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
import { after, describe, it } from 'node:test';
import { DaemonStatus, MemoryAdd, MemoryList, MemoryReflect, MemorySearch } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, spawnDaemon, startDaemon, tempDir } from '@memoryd/test-support';
import { dropSchemas, freshSchema, PG_SKIP, pgAdmin } from './helpers/postgres.js';
import { type RpcClient, connect } from './helpers/rpc.js';

/** A daemon on PostgreSQL, its tables in `schema`. */
function onSchema(schema: string, extra: string[] = []): Parameters<typeof startDaemon>[0] {
  return { args: ['--store', 'postgres', ...extra], env: { PGOPTIONS: `-c search_path=${schema}` }, logLevel: 'info' };
}

describe('memoryd --store postgres', { skip: PG_SKIP }, () => {
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

  it('refuses at start a database a newer daemon migrated', async () => {
    const schema = await freshSchema();
    const first = await startDaemon(onSchema(schema));
    await first.stop();
    await pgAdmin((c) => c.query(`INSERT INTO ${schema}.memoryd_migrations (version, record_format, daemon_version) VALUES (99, 1, '99.0.0')`));
    const refused = await spawnDaemon({ ...onSchema(schema), wait: 'exit' });
    assert.notEqual(refused.exit()?.code, 0);
    assert.match(refused.stderr(), /schema is at version 99, newer than this daemon's 2/);
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
