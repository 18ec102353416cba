import { Limits } from '@memoryd/protocol';
import { decodeError, invalidParams } from '../../errors.js';

/*
 * Key layout (LayoutVersion 3). Every record lives in one sublevel; a
 * sublevel prefixes its keys with `!name!` (abstract-level's separator).
 * Keys and values are UTF-8 strings; every value is sealed with a
 * checksum of its key and payload (record-seal.ts), and the payloads
 * below are JSON (see codec.ts) unless said otherwise: the stored
 * records of format 1 (stored-records.ts), whose shapes are held apart
 * from the wire's. Layout 1 was the same without seals; layout 2 kept one
 * dedup entry per text, listing its facts. A store of an older layout is
 * brought to this one at open (seal-store.ts).
 *
 *   !meta!layout                     "3"
 *   !fact!<agentId>\x00<factId>      a current fact
 *   !hist!<agentId>\x00<factId>      a past version: superseded or deleted
 *   !dedup!<agentId>\x00<sha256>\x00<factId>  "1": fact factId is current and holds
 *                                    that normalised text (a key per fact holding it:
 *                                    one, unless an import brought in more), so that
 *                                    adding or dropping a claim is a write, never a read
 *   !ckpt!<agentId>\x00<checkpointId> a checkpoint, state included
 *   !stats!<agentId>                 {facts, checkpoints, length} of an agent with
 *                                    facts or checkpoints > 0 (length: the summed
 *                                    search length of its current facts)
 *   !vec!<agentId>\x00<factId>       the current fact's vector: `<space>\n<scale>\n<int8s, base64>`
 *                                    (store/level/vectors.ts); deleted in the batch that
 *                                    takes the fact out of the current set
 *   !meta!index                      what the search data was made by (index-build.ts)
 *   !meta!stamp:<agentId>            a stamp every batch that changes the agent's facts
 *                                    rewrites: an index image (store/level/index-images.ts)
 *                                    counts only while it carries the same one
 *
 * The search index lives in memory (store/level/search-indexes.ts); the length
 * in stats changes in the same batch as the facts it sums, and is recounted
 * at open when `!meta!index` is not the running version. Stores of
 * `!meta!index` "postings 2" and earlier also held the LevelDB index under
 * !post!, !term! and !surf!; those sublevels are cleared at open.
 *
 * Why it cannot be escaped: an agentId is 1-128 characters of
 * [A-Za-z0-9._:@-] (asserted here again, whatever the caller checked), so
 * it never contains \x00 or \x01. The keys of agent `a` therefore all lie
 * in [`a\x00`, `a\x01`), and the keys of `a.`, `a:` or `a@b` sort after
 * `a\x01` (every allowed character is above \x01): a range scan of one
 * agent never sees another's keys. A fact version is under exactly one key
 * at any time (`fact` while current, `hist` after), so each record's id
 * appears in exactly one key, as plain text.
 */

/** Version of this layout, kept under `!meta!layout`. */
export const LayoutVersion = '3';

/** Names of the sublevels (bytes '!' < x < 127, as abstract-level requires). */
export const SublevelNames = {
  meta: 'meta',
  fact: 'fact',
  hist: 'hist',
  dedup: 'dedup',
  ckpt: 'ckpt',
  stats: 'stats',
  post: 'post',
  term: 'term',
  surf: 'surf',
  vec: 'vec',
} as const;

/** Between agentId and the rest of a key; can never occur in an agentId. */
export const KEY_SEP = '\x00';
/** The character right after {@link KEY_SEP}: the exclusive end of one agent's range. */
const KEY_END = '\x01';

const AGENT_ID = new RegExp(`^[A-Za-z0-9._:@-]{1,${Limits.agentIdMaxLength}}$`);
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Whether a string is a well-formed agentId. */
export function isAgentId(value: string): boolean {
  return AGENT_ID.test(value);
}

/**
 * Defence in depth: agentIds are validated at the RPC edge, but a key
 * builder that trusted them would be one bug away from mixing agents.
 */
export function assertAgentId(agentId: string): void {
  if (!AGENT_ID.test(agentId)) {
    throw invalidParams('agentId', 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -');
  }
}

function assertUlid(id: string): void {
  if (!ULID.test(id)) throw invalidParams('id', 'must be a ULID');
}

/** Key of a fact version or a checkpoint: `<agentId>\x00<ulid>`. */
export function recordKey(agentId: string, id: string): string {
  assertAgentId(agentId);
  assertUlid(id);
  return agentId + KEY_SEP + id;
}

/** What every dedup key of one text of one agent begins with: `<agentId>\x00<sha256 hex of the normalised text>\x00`. */
export function dedupPrefix(agentId: string, hash: string): string {
  assertAgentId(agentId);
  if (!SHA256_HEX.test(hash)) throw new Error(`dedup hash is not sha256 hex: ${hash}`);
  return agentId + KEY_SEP + hash + KEY_SEP;
}

/** Key of the claim of fact `factId` on a text: `<agentId>\x00<sha256>\x00<factId>`. */
export function dedupKey(agentId: string, hash: string, factId: string): string {
  assertUlid(factId);
  return dedupPrefix(agentId, hash) + factId;
}

/** The hash and fact id of a dedup key's rest (what follows `<agentId>\x00`). */
export function splitDedupRest(rest: string): { hash: string; factId: string } {
  if (!DEDUP_REST.test(rest)) throw decodeError(`dedup key ${JSON.stringify(rest)}`, new Error('expected <sha256>\\x00<factId>'));
  return { hash: rest.slice(0, 64), factId: rest.slice(65) };
}

/** Key of an agent's counters: the agentId itself (the whole key, so no prefix issue). */
export function statsKey(agentId: string): string {
  assertAgentId(agentId);
  return agentId;
}

/** Where the stamps of agents' facts live in `meta` (`stamp:<agentId>`). */
export const STAMP_PREFIX = 'stamp:';

/** Key (in `meta`) of the stamp every batch changing the agent's facts rewrites: what its index image must match. */
export function stampKey(agentId: string): string {
  assertAgentId(agentId);
  return STAMP_PREFIX + agentId;
}

/** A range over keys, as level iterators take it. */
export interface KeyRange {
  gt?: string;
  gte?: string;
  lt?: string;
}

/** Every `<agentId>\x00…` key of one agent, optionally only those after `afterId`. */
export function agentRange(agentId: string, afterId?: string): KeyRange {
  assertAgentId(agentId);
  const lt = agentId + KEY_END;
  if (afterId === undefined) return { gte: agentId + KEY_SEP, lt };
  assertUlid(afterId);
  return { gt: agentId + KEY_SEP + afterId, lt };
}

/** Every `<agentId>\x00…` key of one agent, optionally only those before `beforeId` (for reading newest first). */
export function agentRangeBefore(agentId: string, beforeId?: string): KeyRange {
  assertAgentId(agentId);
  const gte = agentId + KEY_SEP;
  if (beforeId === undefined) return { gte, lt: agentId + KEY_END };
  assertUlid(beforeId);
  return { gte, lt: agentId + KEY_SEP + beforeId };
}

/** Keys of all agents after every key of `agentId` (used by export positions). */
export function afterAgent(agentId: string): string {
  assertAgentId(agentId);
  return agentId + KEY_END;
}

/** Splits `<agentId>\x00<rest>`; a key without that shape is a decode error. */
export function splitKey(key: string): { agentId: string; rest: string } {
  const at = key.indexOf(KEY_SEP);
  const agentId = key.slice(0, Math.max(at, 0));
  if (at <= 0 || !isAgentId(agentId)) {
    throw decodeError(`key ${JSON.stringify(key)}`, new Error('expected <agentId>\\x00<id>'));
  }
  return { agentId, rest: key.slice(at + 1) };
}

// Terms and surfaces are folded words and identifiers (search/analyze.ts):
// never empty, never holding a character below U+0020. Only the key shape
// check of the old posting sublevels uses this (see the layout above).
const TERM = /^[^\x00-\x1f]+$/;

const DEDUP_REST = /^[0-9a-f]{64}\x00[0-9A-HJKMNP-TV-Z]{26}$/;
const POSTING_TAIL = /\x00[0-9a-z]{6}[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Whether `key` has the shape of a key of sublevel `name` (see the layout
 * above): what a key of another agent or term looks like, and a key whose
 * separator or id was damaged does not.
 */
export function wellFormedKey(name: string, key: string): boolean {
  const at = key.indexOf(KEY_SEP);
  if (name === 'stats' || name === 'meta') return true;
  if (at <= 0 || !AGENT_ID.test(key.slice(0, at))) return false;
  const rest = key.slice(at + 1);
  switch (name) {
    case 'fact':
    case 'hist':
    case 'ckpt':
      return ULID.test(rest);
    case 'dedup':
      return DEDUP_REST.test(rest);
    case 'post':
      return POSTING_TAIL.test(rest) && TERM.test(rest.slice(0, rest.length - 33));
    default:
      return TERM.test(rest);
  }
}
