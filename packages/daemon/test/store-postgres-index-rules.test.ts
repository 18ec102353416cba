// The rules a PostgreSQL store's search indexes are kept by, the LevelDB
// store's too (store/index-rules.ts): the memory budget is kept after
// every change, not only after a load; a failed load is tried again after
// a wait that doubles, not by every search; an index loads a page of facts
// at a time. Skipped, saying so, without a server.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import pg from 'pg';
import { DAEMON_VERSION, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { waitFor } from '@memoryd/test-support';
import { PgSearchIndexes, type PgSearchIndexesOptions } from '../dist/store/postgres/pg-search-index.js';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP } from './helpers/postgres.js';

/** The pool as it is, but for `connect`, which `connecting` decides (counted in `connects`). */
function steered(pool: pg.Pool, connecting: () => 'ok' | 'fail'): { pool: pg.Pool; connects: () => number; loadQueries: () => number } {
  let connects = 0;
  let loadQueries = 0;
  const proxy = new Proxy(pool, {
    get(target, name) {
      if (name === 'connect') {
        return async () => {
          connects++;
          if (connecting() === 'fail') throw new Error('no connection for a load, as a server at its max_connections says');
          const client = await target.connect();
          return new Proxy(client, {
            get(c, n) {
              if (n !== 'query') return Reflect.get(c, n, c);
              return (sql: string, values?: unknown[]) => {
                if (typeof sql === 'string' && sql.startsWith('SELECT id, content, tags, context, created_at') && sql.includes('ORDER BY id LIMIT')) loadQueries++;
                return c.query(sql, values);
              };
            },
          });
        };
      }
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { pool: proxy, connects: () => connects, loadQueries: () => loadQueries };
}

describeUnless(PG_SKIP, 'postgres: the search indexes keep the rules both backends keep', () => {
  const pools: pg.Pool[] = [];
  const indexes: PgSearchIndexes[] = [];
  const stores: MemoryStore[] = [];
  after(async () => {
    for (const i of indexes) await i.close();
    for (const p of pools) await p.end();
    for (const s of stores) await s.close();
    await dropSchemas();
  });

  /** A schema with a store to write through, and indexes of it (not started). */
  async function onSchema(budget: number, options: PgSearchIndexesOptions & { connecting?: () => 'ok' | 'fail' } = {}) {
    const schema = await freshSchema();
    const connection = { options: `-c search_path=${schema}` };
    const store = await openPostgresStore({ connection, daemonVersion: DAEMON_VERSION, logger: silentLogger });
    stores.push(store);
    const pool = new pg.Pool({ ...connection, max: 4 });
    pools.push(pool);
    const s = steered(pool, options.connecting ?? (() => 'ok'));
    const index = new PgSearchIndexes(s.pool, connection, silentLogger, budget, options);
    indexes.push(index);
    return { store, index, ...s };
  }

  async function listening(index: PgSearchIndexes): Promise<void> {
    index.start();
    // An agent with no facts loads at once, empty: the index answers once it listens.
    await waitFor(async () => (await index.index('nobody')) !== undefined, 20_000, 'the indexes listening');
  }

  it('loads an index a page of facts at a time, all of them', async () => {
    const { store, index, loadQueries } = await onSchema(64 * 1024 * 1024, { loadPage: 2 });
    await listening(index);
    // Written after the start: no preload loaded it.
    for (let i = 0; i < 5; i++) await store.addFact({ agentId: 'paged', content: `fact number ${i} of five` });
    const before = loadQueries();
    const loaded = await index.index('paged');
    assert.equal(loaded?.facts, 5);
    assert.equal(loadQueries() - before, 3, 'pages of 2, 2 and 1');
  });

  it('tries a failed load again only after its wait, which doubles', async () => {
    let now = 1_000_000;
    let failing = true;
    const { store, index, connects } = await onSchema(64 * 1024 * 1024, { now: () => now, connecting: () => (failing ? 'fail' : 'ok') });
    failing = false;
    await listening(index);
    await store.addFact({ agentId: 'flaky', content: 'a fact whose index fails to load' });
    failing = true;
    const at = connects();
    assert.equal(await index.index('flaky'), undefined, 'searched by SQL');
    assert.equal(connects(), at + 1);
    assert.equal(await index.index('flaky'), undefined);
    assert.equal(connects(), at + 1, 'not tried again by the next search');
    now += 1_001;
    assert.equal(await index.index('flaky'), undefined, 'tried again after 1 s, and failed again');
    assert.equal(connects(), at + 2);
    now += 1_001;
    assert.equal(await index.index('flaky'), undefined);
    assert.equal(connects(), at + 2, 'the second wait is 2 s');
    failing = false;
    now += 1_000;
    assert.equal((await index.index('flaky'))?.facts, 1, 'loaded once it is tried again and works');
  });

  it('keeps the budget after every write, not only after a load', async () => {
    const { store, index } = await onSchema(1024 * 1024);
    await listening(index);
    await store.addFact({ agentId: 'quiet', content: 'one fact of an agent searched once' });
    assert.ok((await index.index('quiet')) !== undefined);
    assert.ok((await index.index('busy')) !== undefined);
    assert.equal(index.stats().agents, 3, 'nobody, quiet and busy loaded');
    // The busy agent's writes grow its index past the budget (words of their own, fifty a fact): the least recently used go.
    for (let i = 0; index.stats().agents > 1 && i < 2_000; i++) {
      await store.addFact({ agentId: 'busy', content: Array.from({ length: 50 }, (_, w) => `w${i}x${w}`).join(' ') });
    }
    assert.equal(index.stats().agents, 1, 'only the agent in use is left');
    assert.ok((await index.index('busy')) !== undefined);
  });
});
