import {
  type CheckpointList,
  type CheckpointResume,
  type CheckpointSave,
  Limits,
  type ParamsOf,
  type ResultOf,
} from '@memoryd/protocol';
import { notFound } from '../../errors.js';
import { type AgentStats, type StoredCheckpoint, decodeCheckpoint, encodeCheckpoint } from './codec.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { readWhole } from './count-check.js';
import { agentRange, recordKey, splitKey } from './keys.js';
import { WriteBatch, commit } from './write-batch.js';

/** Decodes one `ckpt` entry; a value that fails is an error, never skipped. */
function decodeEntry(key: string, text: string): StoredCheckpoint {
  const { agentId, rest: id } = splitKey(key);
  return decodeCheckpoint(`checkpoint ${id} of agent ${agentId}`, text, id);
}

/** `checkpoint.save`: stores the state as a new checkpoint. */
export async function saveCheckpoint(
  ctx: StoreContext,
  p: ParamsOf<typeof CheckpointSave>,
): Promise<ResultOf<typeof CheckpointSave>> {
  // Locked only to keep the agent's counters exact.
  return ctx.lock.run([p.agentId], async () => {
    const { id, createdAt } = ctx.newId();
    const checkpoint: StoredCheckpoint = { id, createdAt, state: p.state };
    if (p.messageCount !== undefined) checkpoint.messageCount = p.messageCount;
    const batch = new WriteBatch();
    batch.put(ctx.subs.ckpt, recordKey(p.agentId, id), encodeCheckpoint(checkpoint));
    batch.count(p.agentId, 0, 1);
    await commit(ctx, batch, `save checkpoint for agent ${p.agentId}`);
    return { checkpointId: id, createdAt };
  });
}

/**
 * The checkpoint asked for, or the latest (highest id). A value that does
 * not decode is an error for this request: resume never falls back to an
 * older checkpoint, which would silently restore the wrong session.
 */
async function findCheckpoint(ctx: StoreContext, agentId: string, id?: string): Promise<StoredCheckpoint | undefined> {
  if (id !== undefined) {
    const text = await guard(`read checkpoint ${id}`, () => ctx.subs.ckpt.get(recordKey(agentId, id)));
    return text === undefined ? undefined : decodeCheckpoint(`checkpoint ${id} of agent ${agentId}`, text, id);
  }
  const [latest] = await guard(`read latest checkpoint of agent ${agentId}`, () =>
    ctx.subs.ckpt.iterator({ ...agentRange(agentId), reverse: true, limit: 1 }).all(),
  );
  return latest === undefined ? undefined : decodeEntry(latest[0], latest[1]);
}

/** `checkpoint.resume`: absence is `{notFound: true}` only with `reportNotFound: true`. */
export async function resumeCheckpoint(
  ctx: StoreContext,
  p: ParamsOf<typeof CheckpointResume>,
): Promise<ResultOf<typeof CheckpointResume>> {
  const found = await findCheckpoint(ctx, p.agentId, p.checkpointId);
  if (found !== undefined) return { checkpoint: found };
  if (p.reportNotFound === true) return { notFound: true };
  throw notFound(
    p.checkpointId === undefined
      ? `agent ${p.agentId} has no checkpoint`
      : `agent ${p.agentId} has no checkpoint ${p.checkpointId}`,
  );
}

/**
 * `checkpoint.list`: id, createdAt and messageCount, oldest first, a page
 * at a time; a first page that holds them all is checked against the
 * agent's counters.
 */
export async function listCheckpoints(
  ctx: StoreContext,
  p: ParamsOf<typeof CheckpointList>,
): Promise<ResultOf<typeof CheckpointList>> {
  const limit = p.limit ?? Limits.limitDefault;
  const check = { agentId: p.agentId, fromStart: p.after === undefined, asked: limit + 1, what: 'checkpoints listed', count: (s: AgentStats) => s.checkpoints };
  const entries = await readWhole(ctx, check, (options) =>
    guard(`list checkpoints of agent ${p.agentId}`, () =>
      ctx.subs.ckpt.iterator({ ...agentRange(p.agentId, p.after), ...options, limit: limit + 1 }).all(),
    ),
  );
  const checkpoints = entries.slice(0, limit).map(([key, text]) => {
    const c = decodeEntry(key, text);
    return c.messageCount === undefined
      ? { id: c.id, createdAt: c.createdAt }
      : { id: c.id, createdAt: c.createdAt, messageCount: c.messageCount };
  });
  const last = checkpoints[checkpoints.length - 1];
  return entries.length > limit && last !== undefined ? { checkpoints, next: last.id } : { checkpoints };
}
