import { AdminExport, CheckpointSave, type ExportRecord, MemoryAdd, MemoryReflect } from '@memoryd/protocol';
import type { RpcClient } from './rpc.js';

/** What {@link populate} stored, by role. */
export interface Populated {
  /** A fact replaced by {@link Populated.successor}. */
  superseded: string;
  successor: string;
  deleted: string;
  tagged: string;
  /** Current facts of `exp-a` that tests may still change. */
  current: string[];
  checkpoints: Array<{ id: string; state: Record<string, unknown>; messageCount?: number }>;
}

/**
 * Stores facts (with history: an update and a delete) and checkpoints for
 * four agents whose ids sort in a telling order (`exp-A` < `exp-a` <
 * `exp-a.` < `exp-b`).
 */
export async function populate(c: RpcClient): Promise<Populated> {
  const add = async (agentId: string, content: string, tags?: string[]) =>
    (await c.ok(MemoryAdd, tags ? { agentId, content, tags } : { agentId, content })).factId;
  const checkpoints: Populated['checkpoints'] = [];
  const save = async (agentId: string, state: Record<string, unknown>, messageCount?: number) => {
    const r = await c.ok(CheckpointSave, messageCount === undefined ? { agentId, state } : { agentId, state, messageCount });
    checkpoints.push(messageCount === undefined ? { id: r.checkpointId, state } : { id: r.checkpointId, state, messageCount });
  };

  const superseded = await add('exp-a', 'the server runs on port 8080');
  const deleted = await add('exp-a', 'a fact that will be deleted');
  const current = [await add('exp-a', 'current fact one'), await add('exp-a', 'current fact two')];
  const tagged = await add('exp-a', 'a tagged fact about ports', ['t1', 't2']);
  await save('exp-a', { step: 1, notes: ['x', 'y'] }, 7);
  const successor = (await c.ok(MemoryReflect, {
    agentId: 'exp-a',
    action: 'update',
    factId: superseded,
    content: 'the server runs on port 9090',
  })).supersededBy!;
  await c.ok(MemoryReflect, { agentId: 'exp-a', action: 'delete', factId: deleted });
  await save('exp-a', { step: 2, nested: { deep: { deeper: [1, 2, 3] } } });

  await add('exp-A', 'upper-case agent fact');
  await save('exp-A', { upper: true });
  await add('exp-a.', 'dotted agent fact one');
  await add('exp-a.', 'dotted agent fact two');
  await add('exp-b', 'agent b fact');
  await save('exp-b', { b: 'state' }, 0);
  return { superseded, successor, deleted, tagged, current, checkpoints };
}

/** Every record of a fresh export (all agents, or one), following cursors to the end. */
export async function exportAll(c: RpcClient, limit = 100, agentId?: string): Promise<ExportRecord[]> {
  const out: ExportRecord[] = [];
  let r = await c.ok(AdminExport, agentId === undefined ? { limit } : { limit, agentId });
  for (let pages = 0; pages < 10_000; pages++) {
    out.push(...r.records);
    if (r.cursor === undefined) return out;
    r = await c.ok(AdminExport, { cursor: r.cursor });
  }
  throw new Error('admin.export never ended');
}
