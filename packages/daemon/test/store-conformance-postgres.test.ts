// Issue 16: the store's contract (helpers/store-conformance.ts), run on
// the PostgreSQL store when the PG* variables name a server (.ci/run
// starts a throwaway one); skipped, saying so, when they do not. Each
// store gets a schema of its own in that database, dropped at the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'node:test';
import { DAEMON_VERSION, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { storeConformance } from './helpers/store-conformance.js';

const server = process.env['PGHOST'] ?? process.env['PGDATABASE'];

if (server === undefined) {
  describe('store conformance: postgres', { skip: 'no PostgreSQL server: PGHOST and PGDATABASE are unset (.ci/run starts one)' }, () => {});
} else {
  const schemas = new Map<MemoryStore, string>();
  const open = async (schema: string): Promise<MemoryStore> => {
    const store = await openPostgresStore({ connection: { options: `-c search_path=${schema}` }, daemonVersion: DAEMON_VERSION, logger: silentLogger });
    schemas.set(store, schema);
    return store;
  };
  storeConformance({
    name: 'postgres',
    async open() {
      const schema = `memoryd_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client();
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA ${schema}`);
      } finally {
        await admin.end();
      }
      return open(schema);
    },
    async reopen(store) {
      const schema = schemas.get(store);
      if (schema === undefined) throw new Error('reopen of a store this backend did not open');
      await store.close();
      schemas.delete(store);
      return open(schema);
    },
    async cleanup() {
      const admin = new pg.Client();
      await admin.connect();
      try {
        for (const [store, schema] of schemas) {
          await store.close();
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        }
      } finally {
        schemas.clear();
        await admin.end();
      }
    },
  });
}
