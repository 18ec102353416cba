import { endianness } from 'node:os';
import type { Fact } from '@memoryd/protocol';
import type pg from 'pg';
import { decodeError, storageError } from '../../errors.js';
import { toFact } from '../rules/records.js';
import type { FactChange, StoredVector, VectorClaim, VectorStore } from '../vector-store.js';
import { FACT_COLUMNS, type FactRow, storedFactOfRow } from './pg-rows.js';

/** How the store runs statements (pg-store.ts): closed, read-only and lost connections answered as for every request. */
export interface PgStatements {
  /** One statement outside a transaction. */
  query<R extends pg.QueryResultRow>(what: string, sql: string, values: unknown[], write?: boolean): Promise<R[]>;
  /** `work` in one transaction, run again after a serialization failure or a deadlock. */
  transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** A connection of the request pool, held until released (a claim's locks live as long as it). */
  connect(what: string): Promise<pg.PoolClient>;
}

/** Where the store hears of changes to the current facts: its own writes and other daemons' (pg-search-index.ts). */
export interface PgFactChanges {
  onChange(listener: (changes: readonly FactChange[]) => void): void;
  onResync(listener: () => void): void;
}

/** Float32Array's own byte order is the host's: copied as it is where that is little-endian. */
const HOST_LE = endianness() === 'LE';

/** A vector as its `vec` column holds it: its float32 components, little-endian. */
export function vectorBytes(vector: Float32Array): Buffer {
  if (HOST_LE) return Buffer.from(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
}

/** The vector of a `vec` column; a malformed one is a Decode error naming it. */
export function vectorOfBytes(what: string, bytes: Buffer): Float32Array {
  if (bytes.length === 0 || bytes.length % 4 !== 0) throw decodeError(what, new Error(`expected float32s, got ${bytes.length} bytes`));
  const vector = new Float32Array(bytes.length / 4);
  if (HOST_LE) new Uint8Array(vector.buffer).set(bytes);
  else for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/**
 * Stores vectors of `$2` for the facts among `$3` still current, each
 * fact locked FOR SHARE until the write commits: a transaction retiring
 * one of them meanwhile waits, and its trigger (migration 4) then deletes
 * the vector; one that retired it first is waited for, and the fact,
 * read again, is left out. Locked in id order: two writers of the same
 * facts wait for each other rather than deadlock.
 */
const PUT_VECTORS = `INSERT INTO fact_vectors (agent_id, fact_id, space, vec)
  SELECT f.agent_id, f.id, $2::text, v.vec
    FROM unnest($3::text[], $4::bytea[]) AS v(id, vec)
    JOIN facts f ON f.agent_id = $1 AND f.id = v.id
   WHERE f.dedup_key IS NOT NULL
   ORDER BY f.id
     FOR SHARE OF f
  ON CONFLICT (agent_id, fact_id) DO UPDATE SET space = EXCLUDED.space, vec = EXCLUDED.vec
  RETURNING fact_id`;

/**
 * The advisory lock of one fact's embedding in one space, as two int4
 * keys: the schema and agent, the fact and space. Advisory locks are the
 * database's, not the schema's, hence the schema in the key. A collision
 * of hashes only makes two facts wait for each other a while.
 */
const CLAIM_KEYS = "hashtext(current_schema() || ' ' || $1), hashtext(id || ' ' || $3)";
/** Claims what no other session holds, and answers it (never waits). */
const CLAIM = `SELECT id FROM unnest($2::text[]) AS t(id) WHERE pg_try_advisory_lock(${CLAIM_KEYS})`;
const RELEASE = `SELECT pg_advisory_unlock(${CLAIM_KEYS}) FROM unnest($2::text[]) AS t(id)`;

/** Rows read at a time when an agent's vectors load. */
const LOAD_PAGE = 5_000;

/**
 * The vectors of meaning search on PostgreSQL (store/vector-store.ts):
 * table `fact_vectors` (migration 4, pg-schema.ts), one row per current
 * fact, deleted by the database itself in the transaction that retires
 * or deletes the fact, whichever daemon runs it. So no vector outlives
 * its fact, and every daemon on the database reads the vectors any of
 * them made. Changes to the current facts reach listeners by the
 * machinery that keeps the search indexes in step (pg-search-index.ts).
 */
export class PgVectors implements VectorStore {
  readonly #sql: PgStatements;
  readonly #changes: PgFactChanges;

  constructor(sql: PgStatements, changes: PgFactChanges) {
    this.#sql = sql;
    this.#changes = changes;
  }

  async agentsWithFacts(): Promise<Array<{ agentId: string; facts: number }>> {
    const rows = await this.#sql.query<{ agent_id: string; facts: string }>(
      'list the agents with facts',
      'SELECT agent_id, count(*) AS facts FROM facts WHERE dedup_key IS NOT NULL GROUP BY agent_id ORDER BY agent_id',
      [],
    );
    return rows.map((r) => ({ agentId: r.agent_id, facts: Number(r.facts) }));
  }

  async loadVectors(space: string, agentId: string, accept: (page: readonly StoredVector[]) => void, signal?: AbortSignal): Promise<string[]> {
    // No vector of a fact no longer current is left to delete: the trigger and the foreign key saw to it.
    // A page at a time, by id: a million vectors are never one result in memory.
    const missing: string[] = [];
    for (let after = ''; ; ) {
      const rows = await this.#sql.query<{ id: string; vec: Buffer | null }>(
        `read vectors of agent ${agentId}`,
        `SELECT f.id, v.vec FROM facts f
           LEFT JOIN fact_vectors v ON v.agent_id = f.agent_id AND v.fact_id = f.id AND v.space = $2
          WHERE f.agent_id = $1 AND f.dedup_key IS NOT NULL AND f.id > $3
          ORDER BY f.id LIMIT ${LOAD_PAGE}`,
        [agentId, space, after],
      );
      const page: StoredVector[] = [];
      for (const { id, vec } of rows) {
        if (vec === null) missing.push(id);
        else page.push({ id, vector: vectorOfBytes(`vector of fact ${id} of agent ${agentId}`, vec) });
      }
      if (page.length > 0) accept(page);
      if (rows.length < LOAD_PAGE) return missing;
      signal?.throwIfAborted();
      after = rows[rows.length - 1]!.id;
    }
  }

  /**
   * Claims by session advisory locks, one per fact and space, on a
   * connection held until the claim is released: a fact another daemon
   * holds is left out, and a daemon that dies mid-claim loses its
   * connection and with it every lock it held. Advisory locks block no
   * write: a fact retired meanwhile is retired, and its vector refused.
   */
  async claimVectors(space: string, agentId: string, ids: readonly string[]): Promise<VectorClaim> {
    const what = `claim the embedding of facts of agent ${agentId}`;
    const client = await this.#sql.connect(what);
    let claimed: string[];
    try {
      claimed = (await client.query<{ id: string }>(CLAIM, [agentId, [...ids], space])).rows.map((r) => r.id);
    } catch (err) {
      client.release(err as Error);
      throw storageError(what, err);
    }
    let released = false;
    return {
      ids: claimed,
      release: async () => {
        if (released) return;
        released = true;
        try {
          if (claimed.length > 0) await client.query(RELEASE, [agentId, claimed, space]);
          client.release();
        } catch (err) {
          // The connection goes, and its locks with it.
          client.release(err as Error);
        }
      },
    };
  }

  async readVectors(space: string, agentId: string, ids: readonly string[]): Promise<StoredVector[]> {
    if (ids.length === 0) return [];
    const rows = await this.#sql.query<{ fact_id: string; vec: Buffer }>(
      `read vectors of agent ${agentId}`,
      'SELECT fact_id, vec FROM fact_vectors WHERE agent_id = $1 AND fact_id = ANY($2::text[]) AND space = $3',
      [agentId, [...ids], space],
    );
    const byId = new Map(rows.map((r) => [r.fact_id, r.vec]));
    const out: StoredVector[] = [];
    for (const id of ids) {
      const vec = byId.get(id);
      if (vec !== undefined) out.push({ id, vector: vectorOfBytes(`vector of fact ${id} of agent ${agentId}`, vec) });
    }
    return out;
  }

  async textsToEmbed(agentId: string, ids: readonly string[]): Promise<Array<{ id: string; text: string }>> {
    return (await this.#facts(agentId, ids)).map((row) => ({ id: row.id, text: row.content }));
  }

  async readFacts(agentId: string, ids: readonly string[]): Promise<Fact[]> {
    return (await this.#facts(agentId, ids)).map((row) => toFact(storedFactOfRow(row)));
  }

  async putVectors(space: string, agentId: string, vectors: readonly StoredVector[]): Promise<string[]> {
    if (vectors.length === 0) return [];
    // One row per fact: ON CONFLICT DO UPDATE may not touch a row twice in one statement (the last vector wins).
    const byId = new Map(vectors.map((v) => [v.id, v.vector]));
    const ids = [...byId.keys()];
    const stored = await this.#sql.transaction(`store vectors of agent ${agentId}`, async (client) => {
      const { rows } = await client.query<{ fact_id: string }>(PUT_VECTORS, [agentId, space, ids, ids.map((id) => vectorBytes(byId.get(id)!))]);
      return new Set(rows.map((r) => r.fact_id));
    });
    return ids.filter((id) => stored.has(id));
  }

  async dropVectors(): Promise<void> {
    // DELETE rather than TRUNCATE: its lock would stop every other daemon's reads of the table meanwhile.
    await this.#sql.query('delete the vectors', 'DELETE FROM fact_vectors', [], true);
  }

  onFactChanges(listener: (changes: readonly FactChange[]) => void): void {
    this.#changes.onChange(listener);
  }

  onResync(listener: () => void): void {
    this.#changes.onResync(listener);
  }

  /** The rows of the current facts among `ids`, in the order of `ids`. */
  async #facts(agentId: string, ids: readonly string[]): Promise<FactRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.#sql.query<FactRow>(
      `read facts of agent ${agentId}`,
      `SELECT ${FACT_COLUMNS} FROM facts WHERE agent_id = $1 AND id = ANY($2::text[]) AND dedup_key IS NOT NULL`,
      [agentId, [...ids]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}
