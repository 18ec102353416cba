// ADR 0032: a PostgreSQL store searches with its own index only while it
// hears of every change. Its listening connection checks that a
// notification sent through the request pool comes back; when none does
// (a connection pooler in transaction mode takes LISTEN and delivers
// nothing), the indexes are never used, search goes by SQL, and a
// warning says why. Skipped, saying so, without a server.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import pg from 'pg';
import { DAEMON_VERSION, type Logger, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { waitFor } from '@memoryd/test-support';
import { PgSearchIndexes } from '../dist/store/postgres/pg-search-index.js';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP } from './helpers/postgres.js';

/** A logger that keeps its warnings. */
function keeping(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push(`${msg} ${JSON.stringify(fields ?? {})}`) };
  return { logger, warnings };
}

describeUnless(PG_SKIP, 'postgres: the search index hears every change, or is not used', () => {
  const pools: pg.Pool[] = [];
  const indexes: PgSearchIndexes[] = [];
  after(async () => {
    for (const i of indexes) await i.close();
    for (const p of pools) await p.end();
    await dropSchemas();
  });

  async function onSchema(deaf: boolean): Promise<{ index: PgSearchIndexes; warnings: string[]; pool: pg.Pool }> {
    const schema = await freshSchema();
    const options = `-c search_path=${schema}`;
    const store = await openPostgresStore({ connection: { options }, daemonVersion: DAEMON_VERSION, logger: silentLogger });
    await store.addFact({ agentId: 'heard', content: 'a fact to load' });
    await store.close();
    const pool = new pg.Pool({ options, max: 2 });
    pools.push(pool);
    // A pool that drops what it is asked to notify, as a pooler in transaction mode does to LISTEN.
    const through = deaf
      ? (Object.assign(Object.create(pool) as pg.Pool, {
          query: (sql: string, values?: unknown[]) => (sql.includes('pg_notify') ? Promise.resolve({ rows: [] }) : pool.query(sql, values)),
        }) as pg.Pool)
      : pool;
    const { logger, warnings } = keeping();
    const index = new PgSearchIndexes(through, { options }, logger, 64 * 1024 * 1024);
    indexes.push(index);
    index.start();
    return { index, warnings, pool };
  }

  it('uses its index once its own notification came back', { timeout: 20_000 }, async () => {
    const { index } = await onSchema(false);
    let loaded = undefined as Awaited<ReturnType<PgSearchIndexes['index']>>;
    // Bounded only against a hang (the test's own timeout is the same guard).
    await waitFor(async () => (loaded = await index.index('heard')) !== undefined, 15_000, 'the index loaded');
    assert.equal(loaded?.facts, 1);
  });

  it('searches by SQL, saying why, when notifications do not come back', { timeout: 20_000 }, async () => {
    const { index, warnings } = await onSchema(true);
    // What the 5 s wait for the echo ends in: the warning. Waited for, not slept past.
    const why = /did not come back within 5 s \(a connection pooler in transaction mode passes none\)/;
    await waitFor(() => warnings.some((w) => why.test(w)), 15_000, 'the warning that the echo did not come back');
    assert.equal(await index.index('heard'), undefined);
  });
});
