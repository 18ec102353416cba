import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import { decodeDedupClaimants, encodeDedupClaimants } from './codec.js';
import type { StoreContext } from './context.js';
import { readSync } from './db.js';
import { dedupKey } from './keys.js';
import type { WriteBatch } from './stats.js';

/**
 * Pending edits of the dedup index within one change. An entry lists every
 * current fact holding its normalised text: normally one, but an import
 * may bring in a second (records keep their ids and state as given), and
 * keeping all claimants means deleting one leaves the others findable.
 * The caller holds the agents' locks; {@link flush} puts the edits into
 * the change's batch.
 */
export class DedupEdits {
  readonly #ctx: StoreContext;
  readonly #entries = new Map<string, { agentId: string; ids: string[]; dirty: boolean }>();

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Ids of the agent's current facts holding this text, oldest claim first. */
  async claimants(agentId: string, hash: string): Promise<readonly string[]> {
    return (await this.#entry(agentId, hash)).ids;
  }

  /** Records that fact `id` now holds this text. */
  async add(agentId: string, hash: string, id: string): Promise<void> {
    const entry = await this.#entry(agentId, hash);
    if (!entry.ids.includes(id)) {
      entry.ids.push(id);
      entry.dirty = true;
    }
  }

  /** Records that fact `id` no longer holds this text (it stopped being current). */
  async remove(agentId: string, hash: string, id: string): Promise<void> {
    const entry = await this.#entry(agentId, hash);
    const at = entry.ids.indexOf(id);
    if (at < 0) {
      // Written in the same batch as the fact: a current fact missing from
      // its entry means a damaged store.
      throw new DaemonError(DaemonErrorCodes.Storage, `dedup entry of agent ${agentId} does not list current fact ${id}`);
    }
    entry.ids.splice(at, 1);
    entry.dirty = true;
  }

  /** Adds the changed entries to the batch (an emptied entry is deleted). */
  flush(batch: WriteBatch): void {
    for (const [key, entry] of this.#entries) {
      if (!entry.dirty) continue;
      if (entry.ids.length === 0) batch.del(this.#ctx.subs.dedup, key);
      else batch.put(this.#ctx.subs.dedup, key, encodeDedupClaimants(entry.ids));
    }
  }

  async #entry(agentId: string, hash: string): Promise<{ agentId: string; ids: string[]; dirty: boolean }> {
    const key = dedupKey(agentId, hash);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const what = `dedup entry of agent ${agentId}`;
      // getSync: this read sits on every add's path, and a synchronous
      // LevelDB get (memtable, block cache, bloom filter) takes ~2 µs where
      // the thread-pool round trip of get() takes ~40 µs.
      const text = readSync(`read ${what}`, () => this.#ctx.subs.dedup.getSync(key));
      entry = { agentId, ids: text === undefined ? [] : decodeDedupClaimants(what, text), dirty: false };
      this.#entries.set(key, entry);
    }
    return entry;
  }
}
