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

/** What an update changes: its new text, its new tags, or both (`tags: []` removes them all). */
export interface Change {
  content?: string | undefined;
  tags?: string[] | undefined;
}

/**
 * What a reflect brings: for an update, its change (InvalidParams when it
 * has neither content nor tags); for a delete, undefined (a delete reads
 * neither).
 */
export function updateChange(p: { action: 'update' | 'delete'; content?: string | undefined; tags?: string[] | undefined }): Change | undefined {
  if (p.action === 'delete') return undefined;
  if (p.content === undefined && p.tags === undefined) throw invalidParams('content', 'is required when action is "update" without tags (give content, tags or both)');
  const change: Change = {};
  if (p.content !== undefined) change.content = p.content;
  if (p.tags !== undefined) change.tags = p.tags;
  return change;
}

/** The text an update leaves: the change's, or the old version's. */
export function changedContent(old: StoredFact, change: Change): string {
  return change.content ?? old.content;
}

/** `old` as history after a delete at `at`. */
export function deletedVersion(old: StoredFact, at: string): StoredFact {
  return { ...old, deletedAt: at };
}

/** `old` as history after an update at `at` to fact `by` (a new fact, or one that already held the text). */
export function supersededVersion(old: StoredFact, by: string, at: string): StoredFact {
  return { ...old, supersededBy: by, updatedAt: at };
}

/** The fact an update makes: under a new id, the change's text and tags, or the old fact's where it brings none. */
export function nextVersion(old: StoredFact, id: string, change: Change, createdAt: string): StoredFact {
  const next: StoredFact = { id, content: changedContent(old, change), createdAt };
  const tags = change.tags ?? old.tags;
  if (tags !== undefined && tags.length > 0) next.tags = tags;
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
