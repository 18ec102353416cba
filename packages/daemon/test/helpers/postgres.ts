import { randomBytes } from 'node:crypto';
import pg from 'pg';

// The PostgreSQL server the PostgreSQL store's tests use: the one the PG*
// variables name (.ci/run starts a throwaway one), each test's tables in
// a schema of its own, dropped at the end.

/** Why the PostgreSQL suites skip, or false when a server is named. */
export const PG_SKIP: string | false =
  (process.env['PGHOST'] ?? process.env['PGDATABASE']) === undefined
    ? 'no PostgreSQL server: PGHOST and PGDATABASE are unset (.ci/run starts one)'
    : false;

/** Runs `work` on a connection of its own to the test server. */
export async function pgAdmin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client();
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

const made: string[] = [];

/** A new, empty schema; {@link dropSchemas} removes it. */
export async function freshSchema(): Promise<string> {
  const schema = `memoryd_test_${randomBytes(6).toString('hex')}`;
  await pgAdmin((c) => c.query(`CREATE SCHEMA ${schema}`));
  made.push(schema);
  return schema;
}

/** Drops every schema {@link freshSchema} made. */
export async function dropSchemas(): Promise<void> {
  await pgAdmin(async (c) => {
    for (const schema of made.splice(0)) await c.query(`DROP SCHEMA ${schema} CASCADE`);
  });
}
