import type pg from 'pg';
import { DaemonError, DaemonErrorCodes } from '../../errors.js';

/*
 * The dedupe rule on PostgreSQL (ADR 0031): one current fact holds each
 * normalised text of an agent, and it is the `dedup_claims` row that says
 * which. A write that makes a fact current takes the claim first, in the
 * same transaction, before it writes the fact: the primary key makes two
 * writers of one text (two daemons, or an add racing an update) wait for
 * each other, and the second sees the first's fact. A claim read as the
 * holder is locked (FOR UPDATE) until the reader commits, so the holder
 * stays current meanwhile; a claim found naming a fact that is not
 * current (nothing should leave one, but a bug or a hand edit could) is
 * taken over rather than believed. Passing a claim on locks the heir, so
 * two writers retiring the two holders of one text at once deadlock (and
 * one runs again) instead of passing the claim to each other's fact.
 */

/** The current fact holding a text. */
export interface Holder {
  id: string;
  createdAt: string;
}

/** Times a claim is tried when its holder goes between two statements (it was retired meanwhile). */
const CLAIM_TRIES = 5;

/**
 * Claims `dedupKey` for fact `factId`, or returns the current fact that
 * holds it (after waiting for a transaction claiming it at the same time).
 */
export async function claimOrHolder(client: pg.PoolClient, agentId: string, dedupKey: string, factId: string): Promise<Holder | undefined> {
  for (let i = 0; i < CLAIM_TRIES; i++) {
    const claimed = await client.query('INSERT INTO dedup_claims (agent_id, dedup_key, fact_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [agentId, dedupKey, factId]);
    if (claimed.rowCount === 1) return undefined;
    const held = await client.query<{ id: string | null; created_at: string | null; current: boolean }>(
      `SELECT f.id, f.created_at, f.dedup_key IS NOT NULL AS current
         FROM dedup_claims c LEFT JOIN facts f ON f.agent_id = c.agent_id AND f.id = c.fact_id
        WHERE c.agent_id = $1 AND c.dedup_key = $2 FOR UPDATE OF c`,
      [agentId, dedupKey],
    );
    const holder = held.rows[0];
    if (holder === undefined) continue; // the claim went meanwhile: claim it again
    if (holder.current && holder.id !== null && holder.created_at !== null) return { id: holder.id, createdAt: holder.created_at };
    await client.query('UPDATE dedup_claims SET fact_id = $3 WHERE agent_id = $1 AND dedup_key = $2', [agentId, dedupKey, factId]);
    return undefined;
  }
  throw new DaemonError(DaemonErrorCodes.Storage, `the text's dedup claim of agent ${agentId} kept changing hands; retry`);
}

/**
 * Drops fact `id`'s claim on `dedupKey` as it stops being current, or
 * passes the claim to another current fact of the same text (an import
 * may have brought one).
 */
export async function releaseClaim(client: pg.PoolClient, agentId: string, dedupKey: string, id: string): Promise<void> {
  const other = await client.query<{ id: string }>(
    'SELECT id FROM facts WHERE agent_id = $1 AND dedup_key = $2 AND id <> $3 ORDER BY id LIMIT 1 FOR UPDATE',
    [agentId, dedupKey, id],
  );
  const heir = other.rows[0]?.id;
  if (heir === undefined) await client.query('DELETE FROM dedup_claims WHERE agent_id = $1 AND dedup_key = $2 AND fact_id = $3', [agentId, dedupKey, id]);
  else await client.query('UPDATE dedup_claims SET fact_id = $4 WHERE agent_id = $1 AND dedup_key = $2 AND fact_id = $3', [agentId, dedupKey, id, heir]);
}
