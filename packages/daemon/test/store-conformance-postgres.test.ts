// Issue 16: the store's contract (helpers/store-conformance.ts), run on
// the PostgreSQL store when the PG* variables name a server (.ci/run
// starts a throwaway one); skipped, saying so, when they do not. Each
// store gets a schema of its own in that database, dropped at the end.
import { DAEMON_VERSION, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP } from './helpers/postgres.js';
import { storeConformance } from './helpers/store-conformance.js';

if (PG_SKIP !== false) {
  describeUnless(PG_SKIP, 'store conformance: postgres', () => {});
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
      return open(await freshSchema());
    },
    async reopen(store) {
      const schema = schemas.get(store);
      if (schema === undefined) throw new Error('reopen of a store this backend did not open');
      await store.close();
      schemas.delete(store);
      return open(schema);
    },
    async cleanup() {
      for (const store of schemas.keys()) await store.close();
      schemas.clear();
      await dropSchemas();
    },
  });
}
