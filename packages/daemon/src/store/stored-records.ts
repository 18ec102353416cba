import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { validate } from '@memoryd/protocol';
import { decodeError } from '../errors.js';

/*
 * The records a store keeps, as schemas of their own: every backend
 * stores these shapes (LevelDB as JSON values, codec.ts), whatever the
 * wire says today. They are deliberately not derived from the protocol's
 * schemas (ADR 0027): the wire's limits say what a client may send now,
 * while a store must go on reading what an older daemon accepted. Were
 * the codec derived from the wire, tightening a wire limit (say, the
 * content's 16 KiB) would make every longer fact already stored
 * undecodable, a storage error on each read of it.
 *
 * So a stored record is checked for what makes it usable (ids and times
 * in the forms keys and ordering rely on, text present, counts whole),
 * never against a size limit. A change of these shapes is a new
 * {@link STORED_RECORD_FORMAT}, and each backend records which format its
 * data holds (LevelDB: layout 2 holds format 1, store/level/keys.ts).
 */

/** The version of the shapes below. */
export const STORED_RECORD_FORMAT = 1;

/** A ULID as stored: the form ids sort by (the protocol's Ulid, held apart). */
export const StoredId = Type.String({ pattern: '^[0-7][0-9A-HJKMNP-TV-Z]{25}$' });

/** A time as stored: RFC 3339 UTC with milliseconds, so that times sort as text. */
export const StoredTime = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\.\\d{3}Z$',
});

/**
 * One version of a fact (current while it has neither `supersededBy`
 * nor `deletedAt`). The agent is in the key, not the value. Text and
 * tags of any length: their limits are the wire's.
 */
export const StoredFact = Type.Object({
  id: StoredId,
  content: Type.String({ minLength: 1 }),
  tags: Type.Optional(Type.Array(Type.String())),
  createdAt: StoredTime,
  updatedAt: Type.Optional(StoredTime),
  supersededBy: Type.Optional(StoredId),
  deletedAt: Type.Optional(StoredTime),
  /**
   * The text of the agent's newest current fact when this one was added
   * (ADR 0033): indexed at half a word's weight, never returned.
   */
  context: Type.Optional(Type.String()),
});
/** One version of a fact, as stored. */
export type StoredFact = Static<typeof StoredFact>;

/** A checkpoint, state included (an object of any size and depth). */
export const StoredCheckpoint = Type.Object({
  id: StoredId,
  createdAt: StoredTime,
  state: Type.Record(Type.String(), Type.Unknown()),
  messageCount: Type.Optional(Type.Integer({ minimum: 0 })),
});
/** A checkpoint, as stored. */
export type StoredCheckpoint = Static<typeof StoredCheckpoint>;

/** An agent's counters. */
export const AgentStats = Type.Object({
  facts: Type.Integer({ minimum: 0 }),
  checkpoints: Type.Integer({ minimum: 0 }),
  /** Summed search length of the current facts (search/doc-terms.ts): BM25's average length. */
  length: Type.Integer({ minimum: 0 }),
});
/** An agent's counters: current facts, checkpoints, and the facts' summed length. */
export type AgentStats = Static<typeof AgentStats>;

/** `value` as a record of `schema`, for any backend; a decode error for `what` when it is not one. */
export function checkStored<T extends TSchema>(schema: T, what: string, value: unknown): Static<T> {
  const checked = validate(schema, value, 'value');
  if (!checked.ok) throw decodeError(what, new Error(`${checked.error.field}: ${checked.error.reason}`));
  return checked.value;
}
