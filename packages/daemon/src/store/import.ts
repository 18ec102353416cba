import {
  type AdminImport,
  ErrorCodes,
  type ExportRecord,
  type ParamsOf,
  type ResultOf,
  validateExportRecord,
} from '@memoryd/protocol';
import { type StoredCheckpoint, type StoredFact, encodeCheckpoint, encodeFact } from './codec.js';
import { type StoreContext, guard } from './context.js';
import { DedupEdits } from './dedup.js';
import { IndexEdits } from './index-edits.js';
import { recordKey } from './keys.js';
import { contentHash } from './normalize.js';
import { WriteBatch, commit } from './stats.js';

type Rejection = ResultOf<typeof AdminImport>['rejected'][number];

function storedFact(r: Extract<ExportRecord, { type: 'fact' }>): StoredFact {
  const fact: StoredFact = { id: r.id, content: r.content, createdAt: r.createdAt };
  if (r.tags !== undefined) fact.tags = r.tags;
  if (r.updatedAt !== undefined) fact.updatedAt = r.updatedAt;
  if (r.supersededBy !== undefined) fact.supersededBy = r.supersededBy;
  if (r.deletedAt !== undefined) fact.deletedAt = r.deletedAt;
  return fact;
}

function storedCheckpoint(r: Extract<ExportRecord, { type: 'checkpoint' }>): StoredCheckpoint {
  const checkpoint: StoredCheckpoint = { id: r.id, createdAt: r.createdAt, state: r.state };
  if (r.messageCount !== undefined) checkpoint.messageCount = r.messageCount;
  return checkpoint;
}

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
  const rejected: Rejection[] = [];
  const valid: ExportRecord[] = [];
  p.records.forEach((record, index) => {
    const checked = validateExportRecord(record, `records[${index}]`);
    if (checked.ok) valid.push(checked.value);
    else rejected.push({ index, code: ErrorCodes.InvalidParams, reason: `${checked.error.field}: ${checked.error.reason}` });
  });
  if (valid.length === 0) return { imported: 0, skipped: 0, rejected };

  return ctx.lock.run(
    valid.map((r) => r.agentId),
    async () => {
      const already = await existing(ctx, valid);
      const seen = new Set<string>();
      const batch = new WriteBatch();
      const dedup = new DedupEdits(ctx);
      const index = new IndexEdits(batch);
      let imported = 0;
      let skipped = 0;
      for (const [i, r] of valid.entries()) {
        const key = recordKey(r.agentId, r.id);
        const identity = `${r.type}\x00${key}`;
        if (already[i] === true || seen.has(identity)) {
          skipped++;
          continue;
        }
        seen.add(identity);
        imported++;
        if (r.type === 'checkpoint') {
          batch.put(ctx.subs.ckpt, key, encodeCheckpoint(storedCheckpoint(r)));
          batch.count(r.agentId, 0, 1);
          continue;
        }
        const fact = storedFact(r);
        if (fact.supersededBy !== undefined || fact.deletedAt !== undefined) {
          batch.put(ctx.subs.hist, key, encodeFact(fact));
          continue;
        }
        batch.put(ctx.subs.fact, key, encodeFact(fact));
        await dedup.add(r.agentId, contentHash(fact.content), fact.id);
        index.add(r.agentId, fact);
      }
      dedup.flush(batch);
      await commit(ctx, batch, `import ${imported} records`);
      return { imported, skipped, rejected };
    },
  );
}
