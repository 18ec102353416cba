import type pg from 'pg';
import { DaemonError, DaemonErrorCodes, storageError, unavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { STORED_RECORD_FORMAT } from '../stored-records.js';
import { isConnectionLoss, release, sqlState } from './pg-connections.js';

/*
 * The PostgreSQL schema, as numbered migrations the daemon applies at
 * start (ADR 0027), each in its own transaction, recorded in
 * `memoryd_migrations`. Every daemon takes one advisory lock while it
 * migrates, so two daemons starting on one database at once apply each
 * migration once. A database already past the newest migration this
 * daemon knows was written by a newer daemon: it is refused, not used.
 *
 * The tables live in the connection's first schema (`search_path`).
 * Ids are ULIDs and times RFC 3339 text, kept as given (import keeps
 * them so): text columns of the "C" collation, so they sort by bytes as
 * LevelDB's keys do. A checkpoint's state is JSON text, so that it comes
 * back as it was saved (`jsonb` would reorder its keys).
 */

/** Stored record format 1 (stored-records.ts) is what migrations 1 to 5 hold. */
const MIGRATION_FORMAT: Record<number, number> = { 1: 1, 2: 1, 3: 1, 4: 1, 5: 1 };

/** How long a migration waits for a lock on a table (readers of it, such as another daemon's open export, hold one). */
const MIGRATION_LOCK_WAIT_S = 60;
/**
 * The bound of one migration statement: a day. A migration may rewrite a
 * large table (migration 3 rebuilds the search column of every fact).
 */
export const MIGRATION_STATEMENT_MS = 24 * 60 * 60 * 1000;

/** Key of the advisory lock the migrations hold (any fixed 64-bit number; "memoryd" in ASCII). */
const MIGRATION_LOCK = 0x6d656d6f727964n;

/** The migrations, in order; migration N is MIGRATIONS[N - 1]. Never edit one that has shipped: add another. */
const MIGRATIONS: ((unaccent: string) => string[])[] = [
  (unaccent) => [
    // unaccent() is STABLE (it reads a dictionary), and a generated column
    // needs an IMMUTABLE expression: this wrapper names the dictionary
    // itself, as PostgreSQL's documentation suggests.
    `CREATE FUNCTION memoryd_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
       AS $$ SELECT ${unaccent}.unaccent('${unaccent}.unaccent'::regdictionary, $1) $$`,
    // What search reads of a fact: its text and its tags, as on LevelDB.
    `CREATE FUNCTION memoryd_search_text(content text, tags text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
       AS $$ SELECT memoryd_unaccent(content || coalesce(' ' || array_to_string(tags, ' '), '')) $$`,
    `CREATE TABLE facts (
       agent_id text COLLATE "C" NOT NULL,
       id text COLLATE "C" NOT NULL,
       content text NOT NULL,
       tags text[],
       created_at text COLLATE "C" NOT NULL,
       updated_at text,
       superseded_by text COLLATE "C",
       deleted_at text,
       dedup_key text COLLATE "C",
       tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', memoryd_search_text(content, tags))) STORED,
       PRIMARY KEY (agent_id, id),
       CHECK ((dedup_key IS NULL) = (superseded_by IS NOT NULL OR deleted_at IS NOT NULL))
     )`,
    `CREATE INDEX facts_current ON facts (agent_id, id) WHERE dedup_key IS NOT NULL`,
    `CREATE INDEX facts_text ON facts (agent_id, dedup_key) WHERE dedup_key IS NOT NULL`,
    `CREATE INDEX facts_search ON facts USING gin (tsv) WHERE dedup_key IS NOT NULL`,
    // Which current fact holds a normalised text: the unique key that
    // makes two daemons adding one text at once store it once.
    `CREATE TABLE dedup_claims (
       agent_id text COLLATE "C" NOT NULL,
       dedup_key text COLLATE "C" NOT NULL,
       fact_id text COLLATE "C" NOT NULL,
       PRIMARY KEY (agent_id, dedup_key)
     )`,
    `CREATE TABLE checkpoints (
       agent_id text COLLATE "C" NOT NULL,
       id text COLLATE "C" NOT NULL,
       created_at text COLLATE "C" NOT NULL,
       state text NOT NULL,
       message_count integer,
       PRIMARY KEY (agent_id, id)
     )`,
  ],
  () => [
    // Every fact row written, by any daemon or by hand, is announced on
    // the schema's channel (delivered at commit, in commit order): the
    // daemons keep their search indexes in step by it (ADR 0032).
    `CREATE FUNCTION memoryd_fact_changed() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       row facts;
     BEGIN
       IF TG_OP = 'DELETE' THEN row := OLD; ELSE row := NEW; END IF;
       PERFORM pg_notify('memoryd_' || md5(TG_TABLE_SCHEMA), row.agent_id || E'\\n' || row.id);
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER facts_changed AFTER INSERT OR UPDATE OR DELETE ON facts FOR EACH ROW EXECUTE FUNCTION memoryd_fact_changed()`,
  ],
  () => [
    // What was said just before the fact (ADR 0033), searched at half
    // weight: by the daemons' own indexes, and by SQL as weight D.
    `ALTER TABLE facts ADD COLUMN context text`,
    `DROP INDEX facts_search`,
    `ALTER TABLE facts DROP COLUMN tsv`,
    `ALTER TABLE facts ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
       setweight(to_tsvector('english', memoryd_search_text(content, tags)), 'A')
       || setweight(to_tsvector('english', memoryd_unaccent(coalesce(context, ''))), 'D')) STORED`,
    `CREATE INDEX facts_search ON facts USING gin (tsv) WHERE dedup_key IS NOT NULL`,
  ],
  () => [
    // The vectors of meaning search (store/vector-store.ts): one per current
    // fact, the space it was made in, its float32 components little-endian.
    // A fact row deleted takes its vector with it (the foreign key); a fact
    // retired (its dedup_key set to NULL) too, by the trigger, in the same
    // transaction. A writer of vectors locks the facts FOR SHARE
    // (pg-vectors.ts), so a retirement committing meanwhile waits for it, or
    // it for the retirement: no vector outlives its fact.
    `CREATE TABLE fact_vectors (
       agent_id text COLLATE "C" NOT NULL,
       fact_id text COLLATE "C" NOT NULL,
       space text NOT NULL,
       vec bytea NOT NULL,
       PRIMARY KEY (agent_id, fact_id),
       FOREIGN KEY (agent_id, fact_id) REFERENCES facts (agent_id, id) ON DELETE CASCADE,
       CHECK (length(vec) > 0 AND length(vec) % 4 = 0)
     )`,
    `CREATE FUNCTION memoryd_fact_retired() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       -- Named by the facts' own schema: a hand edit under another search_path deletes the right rows.
       EXECUTE format('DELETE FROM %I.fact_vectors WHERE agent_id = $1 AND fact_id = $2', TG_TABLE_SCHEMA) USING OLD.agent_id, OLD.id;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER facts_retired AFTER UPDATE ON facts FOR EACH ROW WHEN (NEW.dedup_key IS NULL) EXECUTE FUNCTION memoryd_fact_retired()`,
  ],
  () => [
    // memory.history walks back from a version to those it replaced (store/rules/fact-history.ts).
    `CREATE INDEX facts_superseded_by ON facts (agent_id, superseded_by) WHERE superseded_by IS NOT NULL`,
  ],
];

/** The newest migration this daemon knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema `unaccent` lives in, quoted; creates the extension in the first schema when it is missing. */
async function unaccentSchema(client: pg.PoolClient): Promise<string> {
  const find = () =>
    client.query<{ schema: string }>(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
    );
  let found = await find();
  if (found.rows.length === 0) {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS unaccent');
    } catch (err) {
      throw storageError(
        'create the unaccent extension (a superuser or the database owner may: CREATE EXTENSION unaccent)',
        err,
      );
    }
    found = await find();
  }
  const schema = found.rows[0]?.schema;
  if (schema === undefined) throw storageError('find the unaccent extension', new Error('not installed'));
  return schema;
}

/**
 * Creates the schema the tables go in when it does not exist yet: the
 * first of the connection's `search_path` (say, `PGOPTIONS='-c
 * search_path=memoryd'`), which PostgreSQL otherwise leaves unselected.
 */
async function ensureSchema(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ schema: string | null; path: string }>("SELECT current_schema() AS schema, current_setting('search_path') AS path");
  if (rows[0]?.schema !== null && rows[0]?.schema !== undefined) return;
  const first = (rows[0]?.path ?? '').split(',')[0]!.trim();
  if (first === '' || first === '"$user"' || first === '$user') return;
  const name = first.startsWith('"') && first.endsWith('"') ? first.slice(1, -1).replace(/""/g, '"') : first.toLowerCase();
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(name)}`);
}

/** Why this daemon will not write a database a newer daemon migrated to version `at`. */
export function newerSchema(at: number): string {
  return `the database's schema is at version ${at}, newer than this daemon's ${SCHEMA_VERSION}: run a memoryd at least as new as the one that migrated it`;
}

/**
 * Takes the migration lock, within the lock timeout: a daemon that
 * cannot says which server process holds it, in one line.
 */
async function lockMigrations(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  } catch (err) {
    if (sqlState(err) !== '55P03') throw err;
    const { rows } = await client
      .query<{ pid: number; app: string }>(
        `SELECT l.pid, a.application_name AS app FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND ((l.classid::bigint << 32) | l.objid::bigint) = $1`,
        [MIGRATION_LOCK.toString()],
      )
      .catch(() => ({ rows: [] as { pid: number; app: string }[] }));
    const holder = rows[0] === undefined ? 'another session' : `server process ${rows[0].pid}${rows[0].app ? ` (${rows[0].app})` : ''}`;
    throw new DaemonError(DaemonErrorCodes.StoreUnavailable, `could not take the schema migration lock within the lock timeout (--pg-lock-timeout): ${holder} holds it`, { cause: err });
  }
}

/**
 * Brings the database's schema to {@link SCHEMA_VERSION}; throws a
 * StoreNewer error for a database a newer daemon migrated, and a storage
 * error for anything else that fails (nothing half applied stays: each
 * migration is one transaction).
 */
export async function migrate(pool: pg.Pool, daemonVersion: string, logger: Logger): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw unavailableError('connect to PostgreSQL', err);
  }
  let failed: unknown;
  try {
    await lockMigrations(client);
    try {
      await ensureSchema(client);
      await client.query(
        `CREATE TABLE IF NOT EXISTS memoryd_migrations (
           version integer PRIMARY KEY,
           record_format integer NOT NULL,
           daemon_version text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM memoryd_migrations');
      const at = rows[0]?.version ?? 0;
      if (at > SCHEMA_VERSION) throw new DaemonError(DaemonErrorCodes.StoreNewer, newerSchema(at));
      if (at === SCHEMA_VERSION) return;
      const unaccent = await unaccentSchema(client);
      for (let version = at + 1; version <= SCHEMA_VERSION; version++) {
        await client.query('BEGIN');
        try {
          // A minute to take its locks, not a request's bound (the pool `migrate` is given has no statement bound).
          await client.query(`SET LOCAL lock_timeout = '${MIGRATION_LOCK_WAIT_S}s'`);
          for (const sql of MIGRATIONS[version - 1]!(unaccent)) await client.query(sql);
          await client.query('INSERT INTO memoryd_migrations (version, record_format, daemon_version) VALUES ($1, $2, $3)', [
            version,
            MIGRATION_FORMAT[version] ?? STORED_RECORD_FORMAT,
            daemonVersion,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw storageError(`apply schema migration ${version}`, err);
        }
        logger.info('applied a schema migration', { version });
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
    }
  } catch (err) {
    failed = err;
    if (err instanceof DaemonError) throw err;
    if (isConnectionLoss(err)) throw unavailableError('migrate the database schema', err);
    throw storageError('migrate the database schema', err);
  } finally {
    release(client, failed);
  }
}
