import type { Static, TSchema } from '@sinclair/typebox';
import { decodeError } from '../../errors.js';
import { AgentStats, StoredCheckpoint, StoredFact, checkStored } from '../stored-records.js';

export { AgentStats, StoredCheckpoint, StoredFact } from '../stored-records.js';

/*
 * LevelDB's values are JSON text of the stored records' shapes
 * (stored-records.ts, apart from the wire's schemas). Decoding parses and
 * then checks the shape: a value that fails either is a decode error for
 * the request that read it, never skipped and never replaced by a fallback.
 */

function decode<T extends TSchema>(schema: T, what: string, text: string): Static<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw decodeError(what, err);
  }
  return checkStored(schema, what, value);
}

/** Decodes a fact version; its id must be the one in its key. */
export function decodeFact(what: string, text: string, expectedId: string): StoredFact {
  const fact = decode(StoredFact, what, text);
  if (fact.id !== expectedId) throw decodeError(what, new Error(`value.id ${fact.id} does not match its key`));
  return fact;
}

/** Decodes a checkpoint; its id must be the one in its key. */
export function decodeCheckpoint(what: string, text: string, expectedId: string): StoredCheckpoint {
  const checkpoint = decode(StoredCheckpoint, what, text);
  if (checkpoint.id !== expectedId) {
    throw decodeError(what, new Error(`value.id ${checkpoint.id} does not match its key`));
  }
  return checkpoint;
}

/** Decodes an agent's counters. */
export function decodeStats(what: string, text: string): AgentStats {
  return decode(AgentStats, what, text);
}

/** Encodes a fact version, omitting absent optional keys (never null). */
export function encodeFact(fact: StoredFact): string {
  const out: StoredFact = { id: fact.id, content: fact.content, createdAt: fact.createdAt };
  if (fact.tags !== undefined) out.tags = fact.tags;
  if (fact.updatedAt !== undefined) out.updatedAt = fact.updatedAt;
  if (fact.supersededBy !== undefined) out.supersededBy = fact.supersededBy;
  if (fact.deletedAt !== undefined) out.deletedAt = fact.deletedAt;
  if (fact.context !== undefined) out.context = fact.context;
  return JSON.stringify(out);
}

/** Encodes a checkpoint, omitting an absent messageCount. */
export function encodeCheckpoint(checkpoint: StoredCheckpoint): string {
  const out: StoredCheckpoint = { id: checkpoint.id, createdAt: checkpoint.createdAt, state: checkpoint.state };
  if (checkpoint.messageCount !== undefined) out.messageCount = checkpoint.messageCount;
  return JSON.stringify(out);
}

/** Encodes an agent's counters. */
export function encodeStats(stats: AgentStats): string {
  return JSON.stringify({ facts: stats.facts, checkpoints: stats.checkpoints, length: stats.length });
}

/*
 * The search dictionaries' values are plain text, not JSON: they are read
 * and written some tens of times per fact. A `term` value is `<count>`, a
 * `surf` value `<count> <term>` (terms never hold a space); a count is a
 * positive integer (an entry whose count reaches 0 is deleted).
 */

const COUNT = /^[1-9][0-9]*$/;

function decodeCount(what: string, text: string, countText: string): number {
  const count = Number(countText);
  if (!COUNT.test(countText) || !Number.isSafeInteger(count)) {
    throw decodeError(what, new Error(`malformed entry ${JSON.stringify(text)}`));
  }
  return count;
}

/** Decodes a `term` entry: how many current facts hold the term. */
export function decodeTermCount(what: string, text: string): number {
  return decodeCount(what, text, text);
}

/** Encodes a `term` entry. */
export function encodeTermCount(count: number): string {
  return String(count);
}

/** Decodes a `surf` entry: how many current facts hold the word, and its term. */
export function decodeSurface(what: string, text: string): { count: number; term: string } {
  const space = text.indexOf(' ');
  if (space <= 0 || space + 1 >= text.length) throw decodeError(what, new Error(`malformed entry ${JSON.stringify(text)}`));
  return { count: decodeCount(what, text, text.slice(0, space)), term: text.slice(space + 1) };
}

/** Encodes a `surf` entry. */
export function encodeSurface(count: number, term: string): string {
  return `${count} ${term}`;
}
