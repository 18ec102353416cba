import type { MemoryReflect, ParamsOf, ResultOf } from '@memoryd/protocol';
import type { DaemonError } from '../../errors.js';
import { type StoredFact, encodeFact } from './codec.js';
import type { StoreContext } from './context.js';
import { DedupEdits } from './dedup.js';
import { IndexEdits } from './index-edits.js';
import { readClaimant, readCurrentFact, readPastFact } from './facts.js';
import { recordKey } from './keys.js';
import { contentHash } from '../rules/dedupe-key.js';
import { changedContent, deletedVersion, nextVersion, notCurrentError, supersededVersion, updateChange } from '../rules/fact-versions.js';
import { WriteBatch, commit } from './write-batch.js';

/** The not_found error for a fact that is not current, saying why. */
async function notCurrent(ctx: StoreContext, agentId: string, id: string): Promise<DaemonError> {
  return notCurrentError(agentId, id, await readPastFact(ctx, agentId, id));
}

/**
 * Moves the current fact `old` to history as `retired` in the batch: out
 * of the current facts, the search index and its dedup entry.
 */
async function retire(
  ctx: StoreContext,
  batch: WriteBatch,
  edits: { dedup: DedupEdits; index: IndexEdits },
  agentId: string,
  old: StoredFact,
  retired: StoredFact,
): Promise<void> {
  const key = recordKey(agentId, old.id);
  batch.del(ctx.subs.fact, key);
  batch.put(ctx.subs.hist, key, encodeFact(retired));
  edits.index.remove(agentId, old);
  edits.dedup.remove(agentId, contentHash(old.content), old.id);
}

/**
 * `memory.reflect`. Update: the new text and tags (the old ones where the
 * update brings none) become a new fact (new id) that supersedes the old
 * one, which stays as history; when another current fact already holds
 * the new text, the old fact is superseded by that one instead of making
 * a copy, and that fact keeps its own tags. Delete: the fact leaves search
 * and list and stays as history with `deletedAt`.
 */
export async function reflect(ctx: StoreContext, p: ParamsOf<typeof MemoryReflect>): Promise<ResultOf<typeof MemoryReflect>> {
  const change = updateChange(p);
  return ctx.lock.run([p.agentId], async () => {
    const old = await readCurrentFact(ctx, p.agentId, p.factId);
    if (old === undefined) throw await notCurrent(ctx, p.agentId, p.factId);
    const batch = new WriteBatch();
    const dedup = new DedupEdits(ctx);
    const index = new IndexEdits(batch);
    const edits = { dedup, index };
    const what = `${p.action} fact ${p.factId} of agent ${p.agentId}`;

    /** Retires `old` with nothing new taking its place: one current fact fewer. */
    const retireAlone = async (retired: StoredFact): Promise<void> => {
      await retire(ctx, batch, edits, p.agentId, old, retired);
      dedup.flush(batch);
      await commit(ctx, batch, what);
    };

    if (change === undefined) {
      await retireAlone(deletedVersion(old, new Date().toISOString()));
      return { action: 'delete', factId: old.id };
    }

    const hash = contentHash(changedContent(old, change));
    const holder = (await dedup.claimants(p.agentId, hash)).find((id) => id !== old.id);
    if (holder !== undefined) {
      await readClaimant(ctx, p.agentId, holder);
      // The new text is already another current fact: point the old one at it.
      await retireAlone(supersededVersion(old, holder, new Date().toISOString()));
      return { action: 'update', factId: old.id, supersededBy: holder };
    }

    const { id, createdAt } = ctx.newId();
    const next = nextVersion(old, id, change, createdAt);
    await retire(ctx, batch, edits, p.agentId, old, supersededVersion(old, id, createdAt));
    batch.put(ctx.subs.fact, recordKey(p.agentId, id), encodeFact(next));
    index.add(p.agentId, next);
    dedup.add(p.agentId, hash, id);
    dedup.flush(batch);
    await commit(ctx, batch, what);
    return { action: 'update', factId: old.id, supersededBy: id };
  });
}
