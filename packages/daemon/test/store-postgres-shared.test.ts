// Issue 16: many daemons, one database. Two PostgreSQL stores on one
// schema stand for two daemons on two machines: 4 writers each, 2,000
// adds (a tenth the same texts on both sides) and 200 updates. No
// acknowledged write is lost, no text is stored twice, and every fact is
// found by search from either side. Also: two daemons starting on a fresh
// database migrate it once, and a database a newer daemon migrated is
// refused. Skipped, saying so, without a server (PGHOST, PGDATABASE).
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { DAEMON_VERSION, DaemonError, DaemonErrorCodes, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP, pgAdmin } from './helpers/postgres.js';

const stores: MemoryStore[] = [];

async function openOn(schema: string): Promise<MemoryStore> {
  const store = await openPostgresStore({ connection: { options: `-c search_path=${schema}` }, daemonVersion: DAEMON_VERSION, logger: silentLogger });
  stores.push(store);
  return store;
}

describeUnless(PG_SKIP, 'postgres: many daemons, one database', () => {
  after(async () => {
    for (const store of stores) await store.close();
    await dropSchemas();
  });

  it('loses no acknowledged write and stores no text twice, from two daemons at once', { timeout: 110_000 }, async () => {
    const schema = await freshSchema();
    const sides = [await openOn(schema), await openOn(schema)];
    const agentId = 'shared';
    const ADDS = 1_000; // per side
    // Each side's texts: a tenth of them the very texts the other side adds.
    const textOf = (side: number, i: number) => (i % 10 === 0 ? `shared fact number ${i}` : `side ${side} fact number ${i}`);
    const acknowledged = new Map<string, string>(); // text -> id, from every acknowledged add
    const conflicts: string[] = [];
    const writer = async (side: number, w: number): Promise<void> => {
      for (let i = w; i < ADDS; i += 4) {
        const text = textOf(side, i);
        const { factId } = await sides[side]!.addFact({ agentId, content: text });
        const before = acknowledged.get(text);
        if (before !== undefined && before !== factId) conflicts.push(`${text}: ${before} and ${factId}`);
        acknowledged.set(text, factId);
      }
    };
    await Promise.all([0, 1].flatMap((side) => [0, 1, 2, 3].map((w) => writer(side, w))));
    assert.deepEqual(conflicts, [], 'both sides got the same id for a shared text');
    assert.equal(acknowledged.size, 2 * ADDS - ADDS / 10, 'one fact per distinct text');

    // 200 updates, 100 from each side, of facts either side added.
    const texts = [...acknowledged.keys()].filter((t) => !t.startsWith('shared')).slice(0, 200);
    await Promise.all(
      texts.map(async (text, i) => {
        const { supersededBy } = await sides[i % 2]!.reflect({ agentId, action: 'update', factId: acknowledged.get(text)!, content: `${text} revised` });
        acknowledged.delete(text);
        acknowledged.set(`${text} revised`, supersededBy!);
      }),
    );

    for (const side of sides) {
      const listed = new Map<string, string>();
      let after: string | undefined;
      do {
        const page = await side.listFacts({ agentId, limit: 100, ...(after === undefined ? {} : { after }) });
        for (const f of page.facts) {
          assert.equal(listed.has(f.content), false, `${f.content} is stored once`);
          listed.set(f.content, f.id);
        }
        after = page.next;
      } while (after !== undefined);
      assert.deepEqual(listed, acknowledged, 'every acknowledged write, as acknowledged');
      assert.deepEqual(await side.counts(), { facts: acknowledged.size, checkpoints: 0, agents: 1 });
    }
    // Every fact is found by search from either side (its exact text ranks it among the first).
    const sample = [...acknowledged].filter((_, i) => i % 37 === 0);
    for (const [text, id] of sample) {
      for (const side of sides) {
        const { facts } = await side.searchFacts({ agentId, query: text, limit: 100 });
        assert.ok(facts.some((f) => f.id === id), `${text} found`);
      }
    }
  });

  it('migrates a fresh database once when two daemons start on it at once', async () => {
    const schema = await freshSchema();
    await Promise.all([openOn(schema), openOn(schema), openOn(schema)]);
    const rows = await pgAdmin(async (c) => (await c.query(`SELECT version FROM ${schema}.memoryd_migrations ORDER BY version`)).rows);
    assert.deepEqual(rows, [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
  });

  it('refuses a database a newer daemon migrated, and changes nothing', async () => {
    const schema = await freshSchema();
    await (await openOn(schema)).close();
    await pgAdmin((c) => c.query(`INSERT INTO ${schema}.memoryd_migrations (version, record_format, daemon_version) VALUES (99, 1, '99.0.0')`));
    await assert.rejects(openOn(schema), (err: unknown) => {
      assert.ok(err instanceof DaemonError);
      assert.equal(err.code, DaemonErrorCodes.StoreNewer);
      assert.match(err.message, /version 99, newer than this daemon's 5/);
      return true;
    });
    const rows = await pgAdmin(async (c) => (await c.query(`SELECT count(*)::int AS n FROM ${schema}.memoryd_migrations`)).rows);
    assert.deepEqual(rows, [{ n: 6 }]);
  });
});
