import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import pg from 'pg';

const run = promisify(execFile);

// The PostgreSQL server the PostgreSQL store's tests use: the one the PG*
// variables name (.ci/run starts a throwaway one), each test's tables in
// a schema of its own, dropped at the end.

/** Why the PostgreSQL suites skip, or false when a server is named. */
export const PG_SKIP: string | false =
  (process.env['PGHOST'] ?? process.env['PGDATABASE']) === undefined
    ? 'no PostgreSQL server: PGHOST and PGDATABASE are unset (.ci/run starts one)'
    : false;

/**
 * A suite that needs what `skip` says is missing (PG_SKIP: a server):
 * without it, one skipped test naming the reason in its place. A skipped
 * `describe` is not counted in the runner's `# skipped`; a skipped test is.
 */
export function describeUnless(skip: string | false, name: string, fn: () => void): void {
  if (skip === false) describe(name, fn);
  else it(name, { skip }, () => {});
}

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

/** A PostgreSQL server of one test's own, which it may restart, stop and start (the shared one it must not). */
export interface PrivateServer {
  /** The PG* variables that reach it. */
  env: Record<string, string>;
  /** `pg_ctl restart` in `mode`. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** Stops it, keeping its data. */
  halt(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again after a halt. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

const THROWAWAY = fileURLToPath(new URL('../../../../scripts/ci/pg-throwaway.sh', import.meta.url));

async function throwaway(args: string[], env: Record<string, string> = {}): Promise<string> {
  // Bounded: the script's own waits are 30 s each; a test must not hang on one.
  const { stdout } = await run(THROWAWAY, args, { encoding: 'utf8', timeout: 120_000, env: { ...process.env, PGT_TIMEOUT: '30', ...env } });
  return stdout;
}

/**
 * Starts a server of this test's own (scripts/ci/pg-throwaway.sh, as CI
 * does), durable (fsync on) so that a crash loses only what was never
 * acknowledged; the caller's `remove()` stops it and removes its files.
 */
export async function privateServer(): Promise<PrivateServer> {
  const dir = mkdtempSync('/tmp/pgp.');
  const out = await throwaway(['start', dir], { PGT_FSYNC: 'on' });
  const env: Record<string, string> = {};
  for (const m of out.matchAll(/^export (PG\w+)=(.*)$/gm)) env[m[1]!] = m[2]!;
  return {
    env,
    restart: async (mode) => void (await throwaway(['restart', dir, mode])),
    halt: async (mode) => void (await throwaway(['halt', dir, mode])),
    start: async () => void (await throwaway(['start', dir], { PGT_FSYNC: 'on' })),
    remove: async () => void (await throwaway(['stop', dir])),
  };
}
