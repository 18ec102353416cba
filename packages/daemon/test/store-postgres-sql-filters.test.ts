// A PostgreSQL store searching by SQL (its index not in step, ADR 0032)
// still filters (ADR 0038): the times in SQL, on `created_at` compared as
// text, since inclusive and until exclusive; with tags, every match is
// read (no LIMIT) so that the store compares them in normal form after.
// Skipped, saying so, without a server.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import pg from 'pg';
import { DAEMON_VERSION, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { searchFacts } from '../dist/store/postgres/pg-search.js';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP } from './helpers/postgres.js';

const fact = (n: number, content: string, day: number, tags?: string[]) => ({
  type: 'fact' as const,
  agentId: 'sql',
  id: `01J${String(n).padStart(23, '0')}`,
  content,
  createdAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + day * 86_400_000).toISOString(),
  ...(tags === undefined ? {} : { tags }),
});

describeUnless(PG_SKIP, 'postgres: filtered search by SQL', () => {
  const pools: pg.Pool[] = [];
  after(async () => {
    for (const p of pools) await p.end();
    await dropSchemas();
  });

  it('bounds the times in SQL and reads every tagged match when tags filter', async () => {
    const schema = await freshSchema();
    const options = `-c search_path=${schema}`;
    const store = await openPostgresStore({ connection: { options }, daemonVersion: DAEMON_VERSION, logger: silentLogger });
    await store.importRecords({
      records: [fact(1, 'tea at dawn', 0, ['Morning']), fact(2, 'tea at noon', 1), fact(3, 'tea at dusk', 2, ['evening']), fact(4, 'tea at night', 3, ['evening'])],
    });
    await store.close();
    const pool = new pg.Pool({ options, max: 2 });
    pools.push(pool);
    const day = (d: number) => Date.parse('2026-01-01T00:00:00.000Z') + d * 86_400_000;
    const contents = async (limit: number, filter?: { tags?: string[]; since?: number; until?: number }) =>
      (await searchFacts(pool, 'sql', 'tea', limit, filter)).map((r) => r.content).sort();
    assert.deepEqual(await contents(10, { since: day(1), until: day(3) }), ['tea at dusk', 'tea at noon']);
    assert.deepEqual(await contents(10, { since: day(1) + 1 }), ['tea at dusk', 'tea at night']);
    assert.deepEqual(await contents(10, { until: day(0) }), []);
    // Tags: every tagged match within the times, whatever the limit; the store keeps those whose tags pass.
    assert.deepEqual(await contents(1, { tags: ['evening'] }), ['tea at dawn', 'tea at dusk', 'tea at night']);
    assert.deepEqual(await contents(1, { tags: ['evening'], since: day(3) }), ['tea at night']);
    assert.equal((await contents(1)).length, 1);
  });
});
