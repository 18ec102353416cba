import type { AdminImport, ExportRecord, ParamsOf, ResultOf } from '@memoryd/protocol';
import { encodeCheckpoint } from './codec.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { DedupEdits } from './dedup.js';
import { unpackDoc } from './fact-prep.js';
import { IndexEdits } from './index-edits.js';
import { recordKey } from './keys.js';
import { isCurrent } from '../rules/fact-versions.js';
import { checkImportRecords, planImport, storedCheckpointOf, storedFactOf } from '../rules/import-rules.js';
import type { StoredFact } from '../stored-records.js';
import { WriteBatch, commit } from './write-batch.js';

/** Which records' ids their agent already has, as the same kind of record. */
async function existing(ctx: StoreContext, records: readonly ExportRecord[]): Promise<boolean[]> {
  const keys = records.map((r) => recordKey(r.agentId, r.id));
  const [current, past, checkpoints] = await guard('read records before import', () =>
    Promise.all([ctx.subs.fact.getMany(keys), ctx.subs.hist.getMany(keys), ctx.subs.ckpt.getMany(keys)]),
  );
  return records.map((r, i) =>
    r.type === 'fact' ? current[i] !== undefined || past[i] !== undefined : checkpoints[i] !== undefined,
  );
}

/**
 * `admin.import`. Each record is validated on its own: an invalid one is
 * rejected with its index while the rest go on. Ids and times are kept as
 * given; a record whose id its agent already has (same kind, in the store
 * or earlier in this call) is skipped. A fact version with neither
 * `supersededBy` nor `deletedAt` is current: it is indexed, counted and
 * joins its text's dedup entry. Each record stands on its own, so records
 * may come in any order, within a call or across calls. All accepted
 * records go into one atomic batch: each is stored whole or not at all
 * (and a storage failure fails the call, importing nothing).
 */
export async function importRecords(
  ctx: StoreContext,
  p: ParamsOf<typeof AdminImport>,
): Promise<ResultOf<typeof AdminImport>> {
  const { valid, rejected } = checkImportRecords(p.records);
  if (valid.length === 0) return { imported: 0, skipped: 0, rejected };

  // What each fact's write needs of the fact alone, prepared before the
  // agents' locks (on a worker for a large import: fact-prep-pool.ts), so
  // it overlaps the writes of the calls before.
  const facts = new Map<ExportRecord, number>();
  const toPrepare: Array<[StoredFact, boolean]> = [];
  for (const r of valid) {
    if (r.type !== 'fact') continue;
    const fact = storedFactOf(r);
    facts.set(r, toPrepare.length);
    toPrepare.push([fact, isCurrent(fact)]);
  }
  const prepared = await ctx.factPrep.prepare(toPrepare);

  return ctx.lock.run(
    valid.map((r) => r.agentId),
    async () => {
      const { store, skipped } = planImport(valid, await existing(ctx, valid));
      const batch = new WriteBatch();
      const dedup = new DedupEdits(ctx);
      const index = new IndexEdits(batch);
      for (const r of store) {
        const key = recordKey(r.agentId, r.id);
        if (r.type === 'checkpoint') {
          batch.put(ctx.subs.ckpt, key, encodeCheckpoint(storedCheckpointOf(r)));
          batch.count(r.agentId, 0, 1);
          continue;
        }
        const at = facts.get(r)!;
        const [fact, current] = toPrepare[at]!;
        const { value, hash, doc } = prepared[at]!;
        if (!current) {
          batch.put(ctx.subs.hist, key, value);
          continue;
        }
        batch.put(ctx.subs.fact, key, value);
        dedup.add(r.agentId, hash!, fact.id);
        index.addAnalysed(r.agentId, fact.id, unpackDoc(doc!));
      }
      dedup.flush(batch);
      await commit(ctx, batch, `import ${store.length} records`);
      return { imported: store.length, skipped, rejected };
    },
  );
}
