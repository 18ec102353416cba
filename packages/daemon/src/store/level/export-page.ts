import { type ExportRecord, Limits } from '@memoryd/protocol';
import { checkpointRecord, factRecord } from '../rules/records.js';
import { decodeCheckpoint, decodeFact } from './codec.js';
import type { StoreContext } from './context.js';
import { type Db, type Sublevel, guard } from './db.js';
import { type KeyRange, afterAgent, agentRange, recordKey, splitKey } from './keys.js';

/** An explicit LevelDB snapshot. */
export type Snapshot = ReturnType<Db['snapshot']>;

/** Where a page ended: the last record it returned. */
export interface ExportPosition {
  agentId: string;
  kind: 'fact' | 'checkpoint';
  id: string;
}

/**
 * A page holds at most this many bytes of stored values (always at least
 * one record), below the 8 MiB line limit that clients apply: 1,000
 * checkpoints of up to 1 MiB each would otherwise make one response of
 * gigabytes. A short page still carries a cursor when more follow.
 */
export const EXPORT_PAGE_MAX_BYTES = Limits.maxLineBytes / 2;

// Rough JSON overhead of one record beyond its stored value: type, agentId, commas.
const RECORD_OVERHEAD_BYTES = 200;

/** Facts of an agent come before its checkpoints. */
const RANK = { fact: 0, checkpoint: 1 } as const;

interface Head {
  agentId: string;
  id: string;
  text: string;
}

interface Stream {
  kind: 'fact' | 'checkpoint';
  iterator: { next(): Promise<[string, string] | undefined>; close(): Promise<void> };
  head: Head | undefined;
}

/**
 * The range of one stream after `from`. Fact versions (current and past)
 * of an agent come before its checkpoints, so after a fact of agent A the
 * checkpoints restart at A's first, and after a checkpoint of A the facts
 * restart at the next agent.
 */
function rangeAfter(kind: Stream['kind'], agentFilter: string | undefined, from: ExportPosition | undefined): KeyRange {
  const range: KeyRange = agentFilter === undefined ? {} : agentRange(agentFilter);
  if (from === undefined) return range;
  const { lt } = range;
  if (kind === from.kind) return { gt: recordKey(from.agentId, from.id), ...(lt === undefined ? {} : { lt }) };
  const start = kind === 'checkpoint' ? agentRange(from.agentId).gte : afterAgent(from.agentId);
  return { gte: start, ...(lt === undefined ? {} : { lt }) };
}

async function advance(stream: Stream): Promise<void> {
  const entry = await stream.iterator.next();
  if (entry === undefined) {
    stream.head = undefined;
    return;
  }
  const [key, text] = entry;
  const { agentId, rest } = splitKey(key);
  stream.head = { agentId, id: rest, text };
}

/** Whether stream `a`'s head comes before `b`'s: by agentId, facts first, then id. */
function before(a: Stream, b: Stream): boolean {
  const x = a.head!;
  const y = b.head!;
  if (x.agentId !== y.agentId) return x.agentId < y.agentId;
  if (a.kind !== b.kind) return RANK[a.kind] < RANK[b.kind];
  return x.id < y.id;
}

function toRecord(kind: Stream['kind'], head: Head): ExportRecord {
  const { agentId, id, text } = head;
  if (kind === 'checkpoint') return checkpointRecord(agentId, decodeCheckpoint(`checkpoint ${id} of agent ${agentId}`, text, id));
  return factRecord(agentId, decodeFact(`fact version ${id} of agent ${agentId}`, text, id));
}

/** One page of an export, read from a snapshot. */
export interface ExportPage {
  records: ExportRecord[];
  /** The last record returned, when more follow. */
  next: ExportPosition | undefined;
}

/**
 * Reads up to `limit` records after `from` in export order by merging
 * three sorted streams of the snapshot (current facts, past versions,
 * checkpoints; all keyed `<agentId>\x00<id>`). Iterators are created
 * before the first await, so the snapshot is referenced for the whole read.
 */
export async function readExportPage(
  ctx: StoreContext,
  snapshot: Snapshot,
  agentFilter: string | undefined,
  from: ExportPosition | undefined,
  limit: number,
): Promise<ExportPage> {
  const open = (sublevel: Sublevel, kind: Stream['kind']): Stream => ({
    kind,
    iterator: sublevel.iterator({ ...rangeAfter(kind, agentFilter, from), snapshot }),
    head: undefined,
  });
  return guard('read export page', async () => {
    const streams = [open(ctx.subs.fact, 'fact'), open(ctx.subs.hist, 'fact'), open(ctx.subs.ckpt, 'checkpoint')];
    try {
      await Promise.all(streams.map(advance));
      const records: ExportRecord[] = [];
      let bytes = 0;
      let last: ExportPosition | undefined;
      while (records.length < limit) {
        let pick: Stream | undefined;
        for (const s of streams) if (s.head !== undefined && (pick === undefined || before(s, pick))) pick = s;
        if (pick === undefined) break;
        const head = pick.head!;
        bytes += Buffer.byteLength(head.text) + head.agentId.length + RECORD_OVERHEAD_BYTES;
        if (records.length > 0 && bytes > EXPORT_PAGE_MAX_BYTES) break;
        records.push(toRecord(pick.kind, head));
        last = { agentId: head.agentId, kind: pick.kind, id: head.id };
        await advance(pick);
      }
      const more = streams.some((s) => s.head !== undefined);
      return { records, next: more ? last : undefined };
    } finally {
      await Promise.all(streams.map((s) => s.iterator.close()));
    }
  });
}
