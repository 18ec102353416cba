import { type Fact, Limits } from '@memoryd/protocol';
import pg from 'pg';
import { analyzeQuery } from '../../search/analyze.js';
import type { IndexFilter } from '../../search/filter-mask.js';
import type { ResidentIndex } from '../../search/resident-index.js';
import { DEFAULT_INDEX_MEMORY_BYTES } from '../store-config.js';
import { DaemonError, DaemonErrorCodes, notFound, readOnly, storageError, unavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { idSource } from '../ids.js';
import type { VectorStore } from '../vector-store.js';
import type { MemoryStore, StoreCounts, StoreParams as Params, StoreResult as Result } from '../memory-store.js';
import { contentHash } from '../rules/dedupe-key.js';
import { changedContent, deletedVersion, isCurrent, nextVersion, notCurrentError, supersededVersion, updateChange } from '../rules/fact-versions.js';
import { factFilter, passesFilter } from '../rules/fact-filter.js';
import { factHistory } from '../rules/fact-history.js';
import { sortTagCounts } from '../rules/tag-counts.js';
import { tagKeys } from '../../search/normal-form.js';
import { checkImportRecords, planImport, storedCheckpointOf, storedFactOf } from '../rules/import-rules.js';
import { toFact } from '../rules/records.js';
import type { StoredCheckpoint, StoredFact } from '../stored-records.js';
import { claimOrHolder, releaseClaim } from './pg-claims.js';
import { DEFAULT_PG_TIMEOUTS, EXPORT_CONNECTIONS, REQUEST_CONNECTIONS, isConnectionLoss, isRetryable, openPool, type PgTimeouts, release, sqlState } from './pg-connections.js';
import { PgExports } from './pg-export.js';
import { PgHealth } from './pg-health.js';
import { pageSql } from './pg-page-order.js';
import { type IndexedFact, PgSearchIndexes } from './pg-search-index.js';
import { type CheckpointRow, FACT_COLUMNS, type FactRow, storedCheckpointOfRow, storedFactOfRow } from './pg-rows.js';
import { MIGRATION_STATEMENT_MS, migrate } from './pg-schema.js';
import { searchFacts as searchBySql, sqlFilter } from './pg-search.js';
import { PgVectors } from './pg-vectors.js';

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** How to reach the database (pg's own options; the PG* variables fill what is left out). */
  connection: pg.PoolConfig;
  /** The daemon's version, recorded with each migration it applies. */
  daemonVersion: string;
  logger: Logger;
  /** Idle time after which an export cursor expires; default 60,000 ms. */
  exportCursorTtlMs?: number;
  /** How long to wait for the server; default {@link DEFAULT_PG_TIMEOUTS}. */
  timeouts?: PgTimeouts;
  /** What the agents' search indexes may take in memory together; default DEFAULT_INDEX_MEMORY_BYTES (128 MiB), as on LevelDB. */
  indexMemoryBytes?: number;
}

/** Rows a filtered list reads per step of its scan. */
const FILTER_SCAN = 256;

/** Times a transaction runs when it fails on a serialization failure or a deadlock. */
const TRANSACTION_TRIES = 5;

/** A fact version's row, in the columns of {@link INSERT_FACT}: `dedupKey` set while it is current. */
const INSERT_FACT = `INSERT INTO facts (agent_id, id, content, tags, created_at, updated_at, superseded_by, deleted_at, dedup_key, context)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
function factValues(agentId: string, f: StoredFact, dedupKey: string | null): unknown[] {
  return [agentId, f.id, f.content, f.tags ?? null, f.createdAt, f.updatedAt ?? null, f.supersededBy ?? null, f.deletedAt ?? null, dedupKey, f.context ?? null];
}

/** A checkpoint's row; its state as JSON text (kept as saved). */
const INSERT_CHECKPOINT = 'INSERT INTO checkpoints (agent_id, id, created_at, state, message_count) VALUES ($1, $2, $3, $4, $5)';
function checkpointValues(agentId: string, c: StoredCheckpoint): unknown[] {
  return [agentId, c.id, c.createdAt, JSON.stringify(c.state), c.messageCount ?? null];
}

/** What a search index reads of a fact. */
function indexedFact(f: StoredFact): IndexedFact {
  return { id: f.id, content: f.content, tags: f.tags ?? null, context: f.context ?? null, createdAt: f.createdAt };
}

/** A pause before a transaction runs again: a few milliseconds, more each time, jittered. */
function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
}

/**
 * The store on PostgreSQL (ADR 0027, ADR 0031): every write one
 * transaction, dedupe a unique key claimed before the write, search by
 * the daemon's own index kept in step by notifications (pg-search-index.ts;
 * ADR 0032), by SQL while it cannot be. Many daemons may share one database:
 * they see each other's writes at once. A server that restarts or goes
 * away fails the requests on its connections, with the cause, and the
 * pools make new connections when it is back.
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #pool: pg.Pool;
  readonly #exportPool: pg.Pool;
  readonly #exports: PgExports;
  readonly #health: PgHealth;
  readonly #indexes: PgSearchIndexes;
  readonly #newId = idSource();
  #lastCounts: StoreCounts = { facts: 0, checkpoints: 0, agents: 0 };
  #vectors: PgVectors | undefined;
  #closed: Promise<void> | undefined;

  private constructor(pool: pg.Pool, exportPool: pg.Pool, health: PgHealth, options: PostgresStoreOptions, timeouts: PgTimeouts) {
    this.#pool = pool;
    this.#exportPool = exportPool;
    this.#health = health;
    this.#indexes = new PgSearchIndexes(
      pool,
      // Its statements are short; a server that stops answering them is lost (and so is one that vanished: keepalives).
      { ...options.connection, connectionTimeoutMillis: timeouts.connectMs, query_timeout: timeouts.connectMs, keepAlive: true, keepAliveInitialDelayMillis: 10_000 },
      options.logger,
      options.indexMemoryBytes ?? DEFAULT_INDEX_MEMORY_BYTES,
    );
    this.#indexes.start();
    const lost = (err: unknown): void => {
      if (isConnectionLoss(err)) health.lost(err as Error);
    };
    this.#exports = new PgExports(exportPool, options.exportCursorTtlMs ?? Limits.exportCursorIdleMs, options.logger, lost);
  }

  /** Connects, migrates the schema, and returns the store; a failure here is a failure to start. */
  static async open(options: PostgresStoreOptions): Promise<PostgresMemoryStore> {
    const timeouts = options.timeouts ?? DEFAULT_PG_TIMEOUTS;
    let health: PgHealth | undefined;
    const lost = (err: Error): void => health?.lost(err);
    const pool = openPool(options.connection, timeouts, REQUEST_CONNECTIONS, options.logger, lost);
    const exportPool = openPool(options.connection, timeouts, EXPORT_CONNECTIONS, options.logger, lost);
    health = new PgHealth(pool, options.logger);
    // A connection of its own for the migrations: their statements may take minutes.
    const migrating = openPool(options.connection, { ...timeouts, statementMs: MIGRATION_STATEMENT_MS }, 1, options.logger, lost);
    try {
      await migrate(migrating, options.daemonVersion, options.logger);
    } catch (err) {
      health.close();
      await Promise.all([pool.end(), exportPool.end(), migrating.end()].map((p) => p.catch(() => undefined)));
      throw err;
    }
    await migrating.end();
    return new PostgresMemoryStore(pool, exportPool, health, options, timeouts);
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED), again after a
   * serialization failure or a deadlock, a bounded number of times.
   */
  async #transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>, retry = isRetryable): Promise<T> {
    if (this.#closed !== undefined) throw storageError(what, new Error('the store is closed'));
    this.#health.refuseWrite();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(work);
      } catch (err) {
        if (err instanceof DaemonError) throw err;
        if (retry(err) && attempt < TRANSACTION_TRIES) {
          await backoff(attempt);
          continue;
        }
        throw await this.#failed(what, err, true);
      }
    }
  }

  async #once<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let failed: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      this.#health.reached();
      return result;
    } catch (err) {
      failed = err;
      if (!isConnectionLoss(err)) await client.query('ROLLBACK').catch((rollback: unknown) => (failed = rollback));
      throw err;
    } finally {
      release(client, failed);
    }
  }

  /** One statement outside a transaction. */
  async #query<R extends pg.QueryResultRow>(what: string, sql: string, values: unknown[], write = false): Promise<R[]> {
    if (this.#closed !== undefined) throw storageError(what, new Error('the store is closed'));
    if (write) this.#health.refuseWrite();
    try {
      const { rows } = await this.#pool.query<R>(sql, values);
      this.#health.reached();
      return rows;
    } catch (err) {
      throw await this.#failed(what, err, write);
    }
  }

  /** The error a failed statement answers with, once health has learnt from it. */
  async #failed(what: string, err: unknown, write: boolean): Promise<DaemonError> {
    await this.#health.failed(err, write);
    const newer = write ? this.#health.newer() : undefined;
    if (newer !== undefined) return readOnly(newer, err);
    if (sqlState(err) === '25006') return readOnly('the server accepts no writes (a standby, or default_transaction_read_only)', err);
    if (isConnectionLoss(err)) return unavailableError(what, err);
    return storageError(what, err);
  }

  async addFact(p: Params<'addFact'>): Result<'addFact'> {
    const key = contentHash(p.content);
    let added: StoredFact | undefined;
    const result = await this.#transaction(`add a fact of agent ${p.agentId}`, async (client) => {
      added = undefined; // a transaction run again starts over
      const { id, createdAt } = this.#newId();
      const holder = await claimOrHolder(client, p.agentId, key, id);
      if (holder !== undefined) return { factId: holder.id, createdAt: holder.createdAt, duplicate: true as const };
      const fact: StoredFact = { id, content: p.content, createdAt };
      if (p.tags !== undefined) fact.tags = p.tags;
      if (p.context !== undefined) fact.context = p.context;
      await client.query(INSERT_FACT, factValues(p.agentId, fact, key));
      added = fact;
      return { factId: id, createdAt };
    });
    if (added !== undefined) this.#indexes.applied(p.agentId, [indexedFact(added)], []);
    return result;
  }

  /**
   * `memory.search`: by the agent's own index (pg-search-index.ts) when it
   * is loaded and in step, the same BM25 as on LevelDB; else by SQL.
   */
  async searchFacts(p: Params<'searchFacts'>): Result<'searchFacts'> {
    const what = `search the facts of agent ${p.agentId}`;
    if (this.#closed !== undefined) throw storageError(what, new Error('the store is closed'));
    const limit = p.limit ?? Limits.limitDefault;
    const filter = factFilter(p);
    try {
      const index = await this.#indexes.index(p.agentId);
      if (index === undefined) {
        // By SQL, a filter's tags are compared here, on every match (pg-search.ts).
        const rows = await searchBySql(this.#pool, p.agentId, p.query, limit, filter);
        this.#health.reached();
        let facts = rows.map((row) => ({ stored: storedFactOfRow(row), score: row.score }));
        if (filter !== undefined) facts = facts.filter((f) => passesFilter(filter, f.stored)).slice(0, limit);
        return { facts: facts.map((f) => toFact(f.stored, f.score)), ...(filter === undefined ? {} : { passes: null }) };
      }
      const passes = filter === undefined ? {} : { passes: (id: string) => index.passes(id, filter) };
      const query = analyzeQuery(p.query);
      if (query.terms.length === 0) return { facts: [], ...passes };
      const hits = index.search(query, limit, filter);
      if (hits.length === 0) return { facts: [], ...passes };
      const fullMatch = index.fullMatch(query);
      const { rows } = await this.#pool.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND id = ANY($2::text[]) AND dedup_key IS NOT NULL`,
        [p.agentId, hits.map((h) => h.id)],
      );
      this.#health.reached();
      const byId = new Map(rows.map((row) => [row.id, row]));
      const facts: Awaited<Result<'searchFacts'>>['facts'] = [];
      // A hit no longer current was retired by another daemon a moment ago: its notification is on the way.
      for (const { id, score } of hits) {
        const row = byId.get(id);
        if (row !== undefined) facts.push(toFact(storedFactOfRow(row), score));
      }
      return { facts, fullMatch, ...passes };
    } catch (err) {
      throw err instanceof DaemonError ? err : await this.#failed(what, err, false);
    }
  }

  async listFacts(p: Params<'listFacts'>): Result<'listFacts'> {
    const limit = p.limit ?? Limits.limitDefault;
    const filter = factFilter(p);
    if (filter !== undefined) return this.#listFiltered(p, limit, filter);
    const page = pageSql(p.order);
    const rows = await this.#query<FactRow>(
      `list the facts of agent ${p.agentId}`,
      `SELECT ${FACT_COLUMNS} FROM facts
        WHERE agent_id = $1 AND dedup_key IS NOT NULL AND ${page.past('$2')}
        ORDER BY ${page.by} LIMIT $3`,
      [p.agentId, p.after ?? page.start, limit + 1],
    );
    const facts = rows.slice(0, limit).map((row) => toFact(storedFactOfRow(row)));
    return rows.length > limit ? { facts, next: facts[facts.length - 1]!.id } : { facts };
  }

  /**
   * A filtered `memory.list`: the page named by the agent's index (as on
   * LevelDB, search/resident-index.ts `listIds`) when it is in step and
   * its ordinals follow ids; else times in SQL, tags (compared in normal
   * form) here, on the rows read a step at a time in the order asked
   * until a page and one more pass.
   */
  async #listFiltered(p: Params<'listFacts'>, limit: number, filter: IndexFilter): Result<'listFacts'> {
    const { agentId } = p;
    const page = pageSql(p.order);
    const index = await this.#agentIndex(agentId, `list the facts of agent ${agentId}`);
    const ids = index?.listIds(filter, p.after, limit + 1, p.order);
    if (ids !== undefined) {
      const rows = await this.#query<FactRow>(
        `list the facts of agent ${agentId}`,
        `SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND id = ANY($2::text[]) AND dedup_key IS NOT NULL ORDER BY ${page.by}`,
        [agentId, ids.slice(0, limit)],
      );
      // A fact another daemon retired a moment ago is left out: its notification is on the way.
      const facts = rows.map((row) => toFact(storedFactOfRow(row)));
      // The next page follows the last id of this one, returned or not.
      return ids.length > limit ? { facts, next: ids[limit - 1]! } : { facts };
    }
    const f = sqlFilter(filter, 4);
    const facts: Fact[] = [];
    for (let from = p.after ?? page.start; ; ) {
      const rows = await this.#query<FactRow>(
        `list the facts of agent ${agentId}`,
        `SELECT ${FACT_COLUMNS} FROM facts
          WHERE agent_id = $1 AND dedup_key IS NOT NULL AND ${page.past('$2')} ${f.where}
          ORDER BY ${page.by} LIMIT $3`,
        [agentId, from, FILTER_SCAN, ...f.values],
      );
      for (const row of rows) {
        const stored = storedFactOfRow(row);
        if (!passesFilter(filter, stored)) continue;
        if (facts.length === limit) return { facts, next: facts[facts.length - 1]!.id };
        facts.push(toFact(stored));
      }
      if (rows.length < FILTER_SCAN) return { facts };
      from = rows[rows.length - 1]!.id;
    }
  }

  async reflect(p: Params<'reflect'>): Result<'reflect'> {
    const change = updateChange(p);
    let changed: { added: StoredFact[]; removed: StoredFact[] } = { added: [], removed: [] };
    const result = await this.#transaction(`${p.action} fact ${p.factId} of agent ${p.agentId}`, async (client) => {
      // The claims of the old text and the new one first, in one order for every writer: writers
      // retiring two facts of one text, or two updates swapping texts, then wait for each other
      // instead of deadlocking, and each sees the other's outcome (ADR 0031).
      const peek = await client.query<{ content: string }>('SELECT content FROM facts WHERE agent_id = $1 AND id = $2', [p.agentId, p.factId]);
      if (peek.rows[0] !== undefined) {
        const content = change === undefined ? undefined : (change.content ?? peek.rows[0].content);
        const keys = [...new Set([contentHash(peek.rows[0].content), ...(content === undefined ? [] : [contentHash(content)])])].sort();
        await client.query('SELECT 1 FROM dedup_claims WHERE agent_id = $1 AND dedup_key = ANY($2::text[]) ORDER BY dedup_key FOR UPDATE', [p.agentId, keys]);
      }
      const found = await client.query<FactRow>(`SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND id = $2 FOR UPDATE`, [p.agentId, p.factId]);
      const row = found.rows[0];
      const old = row === undefined ? undefined : storedFactOfRow(row);
      if (old === undefined || !isCurrent(old)) throw notCurrentError(p.agentId, p.factId, old);
      const now = new Date().toISOString();
      if (change === undefined) {
        await this.#retire(client, p.agentId, old, deletedVersion(old, now));
        changed = { added: [], removed: [old] };
        return { action: 'delete' as const, factId: old.id };
      }
      // The new text's claim first: a writer of the same text at the same time waits for this one, or this one for it.
      const key = contentHash(changedContent(old, change));
      const { id, createdAt } = this.#newId();
      const holder = await claimOrHolder(client, p.agentId, key, id);
      if (holder !== undefined && holder.id !== old.id) {
        // The new text is already another current fact: point the old one at it.
        await this.#retire(client, p.agentId, old, supersededVersion(old, holder.id, now));
        changed = { added: [], removed: [old] };
        return { action: 'update' as const, factId: old.id, supersededBy: holder.id };
      }
      // Claimed, or held by the old version itself (the same text, normalised): the new version holds it now.
      if (holder !== undefined) await client.query('UPDATE dedup_claims SET fact_id = $3 WHERE agent_id = $1 AND dedup_key = $2', [p.agentId, key, id]);
      await this.#retire(client, p.agentId, old, supersededVersion(old, id, createdAt));
      const next = nextVersion(old, id, change, createdAt);
      await client.query(INSERT_FACT, factValues(p.agentId, next, key));
      changed = { added: [next], removed: [old] };
      return { action: 'update' as const, factId: old.id, supersededBy: next.id };
    });
    this.#indexes.applied(p.agentId, changed.added.map(indexedFact), changed.removed.map(indexedFact));
    return result;
  }

  /** `memory.history` (store/rules/fact-history.ts): versions read by id, and back along `superseded_by` (migration 5's index). */
  async history(p: Params<'history'>): Result<'history'> {
    const what = `read the history of fact ${p.factId} of agent ${p.agentId}`;
    const rowsOf = async (sql: string, values: unknown[]) => (await this.#query<FactRow>(what, sql, values)).map(storedFactOfRow);
    const versions = await factHistory(p.agentId, p.factId, {
      read: async (id) => (await rowsOf(`SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND id = $2`, [p.agentId, id]))[0],
      predecessors: (ids) => rowsOf(`SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND superseded_by = ANY($2::text[])`, [p.agentId, [...ids]]),
    });
    return { versions };
  }

  /** `memory.tags`: from the agent's index, or by SQL while there is none (tags normalised here, as the index keys them). */
  async tags(p: Params<'tags'>): Result<'tags'> {
    const index = await this.#agentIndex(p.agentId, `count the tags of agent ${p.agentId}`);
    if (index !== undefined) return { tags: sortTagCounts(index.tagCounts()) };
    const rows = await this.#query<{ tags: string[] }>(
      `count the tags of agent ${p.agentId}`,
      'SELECT tags FROM facts WHERE agent_id = $1 AND dedup_key IS NOT NULL AND tags IS NOT NULL',
      [p.agentId],
    );
    const counts = new Map<string, number>();
    for (const row of rows) for (const key of tagKeys(row.tags)) counts.set(key, (counts.get(key) ?? 0) + 1);
    return { tags: sortTagCounts([...counts].map(([tag, count]) => ({ tag, count }))) };
  }

  /**
   * The agent's index (pg-search-index.ts), or undefined while it is not
   * in step; a failure to load it is the store's error for `what`.
   */
  async #agentIndex(agentId: string, what: string): Promise<ResidentIndex | undefined> {
    try {
      return await this.#indexes.index(agentId);
    } catch (err) {
      throw err instanceof DaemonError ? err : await this.#failed(what, err, false);
    }
  }

  /** Makes the current fact `old` history as `retired`, its text's claim dropped or passed on (pg-claims.ts). */
  async #retire(client: pg.PoolClient, agentId: string, old: StoredFact, retired: StoredFact): Promise<void> {
    await client.query(
      'UPDATE facts SET updated_at = $3, superseded_by = $4, deleted_at = $5, dedup_key = NULL WHERE agent_id = $1 AND id = $2',
      [agentId, old.id, retired.updatedAt ?? null, retired.supersededBy ?? null, retired.deletedAt ?? null],
    );
    await releaseClaim(client, agentId, contentHash(old.content), old.id);
  }

  async saveCheckpoint(p: Params<'saveCheckpoint'>): Result<'saveCheckpoint'> {
    const { id, createdAt } = this.#newId();
    const checkpoint: StoredCheckpoint = { id, createdAt, state: p.state };
    if (p.messageCount !== undefined) checkpoint.messageCount = p.messageCount;
    await this.#query(`save a checkpoint of agent ${p.agentId}`, INSERT_CHECKPOINT, checkpointValues(p.agentId, checkpoint), true);
    return { checkpointId: id, createdAt };
  }

  async resumeCheckpoint(p: Params<'resumeCheckpoint'>): Result<'resumeCheckpoint'> {
    const rows =
      p.checkpointId === undefined
        ? await this.#query<CheckpointRow>(`resume the latest checkpoint of agent ${p.agentId}`, 'SELECT * FROM checkpoints WHERE agent_id = $1 ORDER BY id DESC LIMIT 1', [p.agentId])
        : await this.#query<CheckpointRow>(`resume checkpoint ${p.checkpointId} of agent ${p.agentId}`, 'SELECT * FROM checkpoints WHERE agent_id = $1 AND id = $2', [p.agentId, p.checkpointId]);
    const row = rows[0];
    if (row === undefined) {
      if (p.reportNotFound === true) return { notFound: true };
      throw notFound(p.checkpointId === undefined ? `agent ${p.agentId} has no checkpoint` : `agent ${p.agentId} has no checkpoint ${p.checkpointId}`);
    }
    return { checkpoint: storedCheckpointOfRow(row) };
  }

  async listCheckpoints(p: Params<'listCheckpoints'>): Result<'listCheckpoints'> {
    const limit = p.limit ?? Limits.limitDefault;
    const rows = await this.#query<Omit<CheckpointRow, 'state'>>(
      `list the checkpoints of agent ${p.agentId}`,
      'SELECT agent_id, id, created_at, message_count FROM checkpoints WHERE agent_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [p.agentId, p.after ?? '', limit + 1],
    );
    const checkpoints = rows.slice(0, limit).map((row) => {
      const c = storedCheckpointOfRow({ ...row, state: '{}' });
      return c.messageCount === undefined ? { id: c.id, createdAt: c.createdAt } : { id: c.id, createdAt: c.createdAt, messageCount: c.messageCount };
    });
    return rows.length > limit ? { checkpoints, next: checkpoints[checkpoints.length - 1]!.id } : { checkpoints };
  }

  async listAgents(_p: Params<'listAgents'>): Result<'listAgents'> {
    const rows = await this.#query<{ agent_id: string; facts: string; checkpoints: string }>(
      'list the agents',
      `SELECT agent_id, sum(facts) AS facts, sum(checkpoints) AS checkpoints FROM (
         SELECT agent_id, count(*) AS facts, 0 AS checkpoints FROM facts WHERE dedup_key IS NOT NULL GROUP BY agent_id
         UNION ALL
         SELECT agent_id, 0, count(*) FROM checkpoints GROUP BY agent_id
       ) a GROUP BY agent_id ORDER BY agent_id`,
      [],
    );
    return { agents: rows.map((r) => ({ agentId: r.agent_id, facts: Number(r.facts), checkpoints: Number(r.checkpoints) })) };
  }

  exportPage(p: Params<'exportPage'>): Result<'exportPage'> {
    if (this.#closed !== undefined) return Promise.reject(storageError('export', new Error('the store is closed')));
    return this.#exports.page(p);
  }

  async importRecords(p: Params<'importRecords'>): Result<'importRecords'> {
    const { valid, rejected } = checkImportRecords(p.records);
    if (valid.length === 0) return { imported: 0, skipped: 0, rejected };
    const added = new Map<string, StoredFact[]>();
    const result = await this.#transaction(`import ${valid.length} records`, async (client) => {
      added.clear(); // a transaction run again starts over
      const facts = valid.filter((r) => r.type === 'fact');
      const checkpoints = valid.filter((r) => r.type === 'checkpoint');
      const have = async (table: string, rs: typeof valid): Promise<Set<string>> => {
        if (rs.length === 0) return new Set();
        const { rows } = await client.query<{ agent_id: string; id: string }>(
          `SELECT agent_id, id FROM ${table} WHERE (agent_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
          [rs.map((r) => r.agentId), rs.map((r) => r.id)],
        );
        return new Set(rows.map((r) => `${r.agent_id}\x00${r.id}`));
      };
      const [factIds, checkpointIds] = await Promise.all([have('facts', facts), have('checkpoints', checkpoints)]);
      const { store, skipped } = planImport(
        valid,
        valid.map((r) => (r.type === 'fact' ? factIds : checkpointIds).has(`${r.agentId}\x00${r.id}`)),
      );
      for (const r of store) {
        if (r.type === 'checkpoint') {
          await client.query(INSERT_CHECKPOINT, checkpointValues(r.agentId, storedCheckpointOf(r)));
          continue;
        }
        const f = storedFactOf(r);
        const key = isCurrent(f) ? contentHash(f.content) : null;
        // The claim first, as for an add; a second current fact of the same text leaves the first one's claim be.
        if (key !== null) await claimOrHolder(client, r.agentId, key, f.id);
        await client.query(INSERT_FACT, factValues(r.agentId, f, key));
        if (key !== null) {
          const facts = added.get(r.agentId);
          if (facts === undefined) added.set(r.agentId, [f]);
          else facts.push(f);
        }
      }
      return { imported: store.length, skipped, rejected };
      // Another daemon importing one of these ids meanwhile (23505): run again, and skip it as stored.
    }, (err) => isRetryable(err) || sqlState(err) === '23505');
    for (const [agentId, facts] of added) this.#indexes.applied(agentId, facts.map(indexedFact), []);
    return result;
  }

  /**
   * The counts; while the server cannot be reached, the last ones read
   * (daemon.status must still answer then: its `health` says why).
   */
  async counts(): Promise<StoreCounts> {
    let rows: { facts: string; checkpoints: string; agents: string }[];
    try {
      rows = await this.#query(
        'count the records',
        `SELECT (SELECT count(*) FROM facts WHERE dedup_key IS NOT NULL) AS facts,
                (SELECT count(*) FROM checkpoints) AS checkpoints,
                (SELECT count(*) FROM (SELECT agent_id FROM facts WHERE dedup_key IS NOT NULL UNION SELECT agent_id FROM checkpoints) a) AS agents`,
        [],
      );
    } catch (err) {
      if (err instanceof DaemonError && err.code === DaemonErrorCodes.StoreUnavailable) return this.#lastCounts;
      throw err;
    }
    const r = rows[0]!;
    this.#lastCounts = { facts: Number(r.facts), checkpoints: Number(r.checkpoints), agents: Number(r.agents) };
    return this.#lastCounts;
  }

  /**
   * The vectors of meaning search (pg-vectors.ts): its statements run as
   * this store's own, and it hears of changes as the search indexes do.
   */
  vectors(): VectorStore {
    this.#vectors ??= new PgVectors(
      {
        query: <R extends pg.QueryResultRow>(what: string, sql: string, values: unknown[], write?: boolean) => this.#query<R>(what, sql, values, write),
        transaction: <T>(what: string, work: (client: pg.PoolClient) => Promise<T>) => this.#transaction(what, work),
        connect: async (what: string) => {
          if (this.#closed !== undefined) throw storageError(what, new Error('the store is closed'));
          try {
            return await this.#pool.connect();
          } catch (err) {
            throw await this.#failed(what, err, false);
          }
        },
      },
      this.#indexes,
    );
    return this.#vectors;
  }

  /** `ok`, `unavailable: CAUSE` or `read-only: CAUSE` (pg-health.ts). */
  health(): string {
    return this.#health.describe();
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#health.close();
      await this.#indexes.close();
      await this.#exports.close();
      await Promise.all([this.#pool.end(), this.#exportPool.end()]);
    })();
    return this.#closed;
  }
}

/** Opens the store on PostgreSQL. */
export function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresMemoryStore> {
  return PostgresMemoryStore.open(options);
}
