import { AdminExport, CheckpointList, type ExportRecord, MemoryList } from '@memoryd/protocol';
import type { RpcClient } from './rpc.js';

/** Every current fact of an agent, id to content, paging through memory.list (100 a page). */
export async function listedFacts(c: RpcClient, agentId: string): Promise<Map<string, string>> {
  const facts = new Map<string, string>();
  let after: string | undefined;
  for (;;) {
    const page = await c.ok(MemoryList, after === undefined ? { agentId, limit: 100 } : { agentId, limit: 100, after });
    for (const f of page.facts) facts.set(f.id, f.content);
    if (page.next === undefined) return facts;
    after = page.next;
  }
}

/** Every checkpoint id of an agent, oldest first, paging through checkpoint.list. */
export async function listedCheckpoints(c: RpcClient, agentId: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await c.ok(CheckpointList, after === undefined ? { agentId, limit: 100 } : { agentId, limit: 100, after });
    for (const x of page.checkpoints) ids.push(x.id);
    if (page.next === undefined) return ids;
    after = page.next;
  }
}

/** Every record of a whole export (one agent's, or all), page by page. */
export async function exportedRecords(c: RpcClient, agentId?: string): Promise<ExportRecord[]> {
  const records: ExportRecord[] = [];
  let page = await c.ok(AdminExport, agentId === undefined ? { limit: 1000 } : { agentId, limit: 1000 });
  for (;;) {
    records.push(...page.records);
    if (page.cursor === undefined) return records;
    page = await c.ok(AdminExport, { cursor: page.cursor });
  }
}
