// The benches' PostgreSQL schemas (ADR 0027): a fresh one per run, on the
// server the PG* variables name, dropped after.

import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Runs one statement on a connection of its own. @param {string} sql */
async function admin(sql) {
  const c = new pg.Client();
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Creates a schema named `<prefix>_<random>`; returns its name and how to drop it.
 * @param {string} prefix
 * @returns {Promise<{schema: string, drop: () => Promise<void>}>}
 */
export async function freshSchema(prefix) {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE SCHEMA ${schema}`);
  return { schema, drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}
