import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import type { StoreContext } from './context.js';
import { guard, readSync } from './db.js';
import { dedupKey, dedupPrefix } from './keys.js';
import type { WriteBatch } from './write-batch.js';

/** What a claim key holds: the key says it all (keys.ts). */
const CLAIM = '1';

/**
 * Pending edits of the dedup index within one change. Each current fact
 * has a key of its own under its normalised text (keys.ts, layout 3), so
 * a text's claimants are the keys under its prefix: normally one, but an
 * import may bring in a second (records keep their ids and state as
 * given), and keeping every claim means deleting one fact leaves the
 * others findable. Adding a claim is a put and dropping one a delete:
 * neither reads the store, so a bulk import writes its claims blind. The
 * caller holds the agents' locks; {@link flush} puts the edits into the
 * change's batch.
 */
export class DedupEdits {
  readonly #ctx: StoreContext;
  /** Claims this change adds (true) or drops (false), by key. */
  readonly #edits = new Map<string, boolean>();

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Ids of the agent's current facts holding this text, lowest id first, with this change's edits. */
  async claimants(agentId: string, hash: string): Promise<string[]> {
    const prefix = dedupPrefix(agentId, hash);
    const stored = await guard(`read the dedup entry of agent ${agentId}`, () => this.#ctx.subs.dedup.iterator({ gte: prefix, lt: `${prefix}\u007f` }).all());
    const ids = new Set(stored.map(([key]) => key.slice(prefix.length)));
    for (const [key, held] of this.#edits) {
      if (!key.startsWith(prefix)) continue;
      if (held) ids.add(key.slice(prefix.length));
      else ids.delete(key.slice(prefix.length));
    }
    return [...ids].sort();
  }

  /** Records that fact `id` now holds this text. */
  add(agentId: string, hash: string, id: string): void {
    this.#edits.set(dedupKey(agentId, hash, id), true);
  }

  /**
   * Records that fact `id` no longer holds this text (it stopped being
   * current). Its claim was written in the same batch as the fact, so a
   * current fact without one means a damaged store.
   */
  remove(agentId: string, hash: string, id: string): void {
    const key = dedupKey(agentId, hash, id);
    const held =
      this.#edits.get(key) ??
      // getSync: one read of one key, with LevelDB's bloom filter.
      readSync(`read the dedup entry of agent ${agentId}`, () => this.#ctx.subs.dedup.getSync(key)) !== undefined;
    if (!held) throw new DaemonError(DaemonErrorCodes.Storage, `dedup entry of agent ${agentId} does not list current fact ${id}`);
    this.#edits.set(key, false);
  }

  /** Adds the claims made and dropped to the batch. */
  flush(batch: WriteBatch): void {
    for (const [key, held] of this.#edits) {
      if (held) batch.put(this.#ctx.subs.dedup, key, CLAIM);
      else batch.del(this.#ctx.subs.dedup, key);
    }
  }
}
