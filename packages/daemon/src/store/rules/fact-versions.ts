import { type DaemonError, invalidParams, notFound } from '../../errors.js';
import type { StoredFact } from '../stored-records.js';

/*
 * What `memory.reflect` does to a fact's versions, the same on every
 * backend (ADR 0027): pure functions of the versions, which a backend
 * then writes in one atomic change.
 */

/** Whether a version is current: neither superseded nor deleted. */
export function isCurrent(fact: StoredFact): boolean {
  return fact.supersededBy === undefined && fact.deletedAt === undefined;
}

/** The text an update brings; InvalidParams when an update has none. */
export function updateContent(action: 'update' | 'delete', content: string | undefined): string | undefined {
  if (action === 'update' && content === undefined) throw invalidParams('content', 'is required when action is "update"');
  return action === 'update' ? content : undefined;
}

/** `old` as history after a delete at `at`. */
export function deletedVersion(old: StoredFact, at: string): StoredFact {
  return { ...old, deletedAt: at };
}

/** `old` as history after an update at `at` to fact `by` (a new fact, or one that already held the text). */
export function supersededVersion(old: StoredFact, by: string, at: string): StoredFact {
  return { ...old, supersededBy: by, updatedAt: at };
}

/** The fact an update makes: the new text under a new id, with the old fact's tags. */
export function nextVersion(old: StoredFact, id: string, content: string, createdAt: string): StoredFact {
  const next: StoredFact = { id, content, createdAt };
  if (old.tags !== undefined) next.tags = old.tags;
  // A correction keeps its place in the conversation: the words it was said after.
  if (old.context !== undefined) next.context = old.context;
  return next;
}

/** The not_found error for a fact that is not current, saying why (`past`: its version in history, if any). */
export function notCurrentError(agentId: string, id: string, past: StoredFact | undefined): DaemonError {
  if (past?.supersededBy !== undefined) return notFound(`fact ${id} of agent ${agentId} was superseded by ${past.supersededBy}`);
  if (past?.deletedAt !== undefined) return notFound(`fact ${id} of agent ${agentId} was deleted`);
  return notFound(`agent ${agentId} has no fact ${id}`);
}
