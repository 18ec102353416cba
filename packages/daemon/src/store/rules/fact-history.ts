import type { FactVersion } from '@memoryd/protocol';
import { toVersion } from './records.js';
import { notFound } from '../../errors.js';
import type { StoredFact } from '../stored-records.js';

/*
 * memory.history, the same on every backend (ADR 0038): every version of
 * a fact's chain, oldest first. An update makes a version that the old
 * one names as `supersededBy`; an update onto a text another current fact
 * holds points the old version at that fact. So the versions that end in
 * one newest version (current, or deleted) form a tree; the history of
 * any of its versions is that whole tree.
 */

/** How a backend reads versions: one by id (current or past), and those that name any of `ids` as supersededBy. */
export interface VersionReader {
  read(id: string): Promise<StoredFact | undefined>;
  predecessors(ids: readonly string[]): Promise<StoredFact[]>;
}

/**
 * The history of `factId`: from it along `supersededBy` to the newest
 * version (a link to a version the store does not hold ends the walk
 * there), then every version whose links lead to that one. Oldest first
 * (by createdAt, then id). NotFound for an id the agent never had.
 */
export async function factHistory(agentId: string, factId: string, reader: VersionReader): Promise<FactVersion[]> {
  const start = await reader.read(factId);
  if (start === undefined) throw notFound(`agent ${agentId} has no fact ${factId}`);
  const all = new Map<string, StoredFact>([[start.id, start]]);
  let newest = start;
  // A chain that loops (only a hand-made import could make one) ends where it meets itself.
  while (newest.supersededBy !== undefined && !all.has(newest.supersededBy)) {
    const next = await reader.read(newest.supersededBy);
    if (next === undefined) break;
    all.set(next.id, next);
    newest = next;
  }
  // Back from the newest: the versions met on the way forward are met again, and walked past.
  const walked = new Set<string>([newest.id]);
  for (let frontier = [newest.id]; frontier.length > 0; ) {
    const found = (await reader.predecessors(frontier)).filter((f) => !walked.has(f.id));
    for (const f of found) {
      walked.add(f.id);
      all.set(f.id, f);
    }
    frontier = found.map((f) => f.id);
  }
  return [...all.values()].sort(byAge).map(toVersion);
}

function byAge(a: StoredFact, b: StoredFact): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
