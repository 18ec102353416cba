import { type Static, Type } from '@sinclair/typebox';
import { AgentId, CheckpointState, Content, MessageCount, Tags, Timestamp, Ulid } from './primitives.js';

/**
 * A fact as methods return it. `score` appears only in `memory.search`.
 * `updatedAt` is reserved: protocol 1 daemons set it only on history
 * (superseded versions), which methods never return.
 */
export const Fact = Type.Object({
  id: Ulid,
  content: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  createdAt: Timestamp,
  updatedAt: Type.Optional(Timestamp),
  score: Type.Optional(Type.Number({ description: 'BM25 relevance; search only.' })),
});
export type Fact = Static<typeof Fact>;

/**
 * One version of a fact as `memory.history` returns it: a version with
 * `supersededBy` was replaced by that fact at `updatedAt`; one with
 * `deletedAt` was deleted then; one with neither is current.
 */
export const FactVersion = Type.Object({
  id: Ulid,
  content: Type.String(),
  tags: Type.Optional(Type.Array(Type.String())),
  createdAt: Timestamp,
  updatedAt: Type.Optional(Timestamp),
  supersededBy: Type.Optional(Ulid),
  deletedAt: Type.Optional(Timestamp),
});
export type FactVersion = Static<typeof FactVersion>;

/** A tag, normalised, and how many of the agent's current facts carry it. */
export const TagCount = Type.Object({
  tag: Type.String({ description: 'The tag normalised: NFC, case folded, trimmed, white space collapsed.' }),
  count: Type.Integer({ minimum: 1 }),
});
export type TagCount = Static<typeof TagCount>;

/** A saved checkpoint, whole. */
export const Checkpoint = Type.Object({
  id: Ulid,
  createdAt: Timestamp,
  state: Type.Record(Type.String(), Type.Unknown()),
  messageCount: Type.Optional(MessageCount),
});
export type Checkpoint = Static<typeof Checkpoint>;

/** A checkpoint as `checkpoint.list` returns it: without its state. */
export const CheckpointSummary = Type.Object({
  id: Ulid,
  createdAt: Timestamp,
  messageCount: Type.Optional(MessageCount),
});
export type CheckpointSummary = Static<typeof CheckpointSummary>;

/** An agent with at least one current fact or checkpoint. */
export const AgentSummary = Type.Object({
  agentId: AgentId,
  facts: Type.Integer({ minimum: 0, description: 'Current facts.' }),
  checkpoints: Type.Integer({ minimum: 0 }),
});
export type AgentSummary = Static<typeof AgentSummary>;

/**
 * One version of a fact in an export file or an import call. Every
 * version travels, current or not, so history survives a round trip: a
 * version with `supersededBy` was replaced by that fact (at `updatedAt`),
 * one with `deletedAt` was deleted then. A version with neither is current.
 * `context` is the text of the agent's newest fact when this one was
 * added: search reads it at half weight, nothing returns it, and an
 * export carries it so that a restored store searches alike.
 */
export const FactRecord = Type.Object({
  type: Type.Literal('fact'),
  agentId: AgentId,
  id: Ulid,
  content: Content,
  tags: Type.Optional(Tags),
  createdAt: Timestamp,
  updatedAt: Type.Optional(Timestamp),
  supersededBy: Type.Optional(Ulid),
  deletedAt: Type.Optional(Timestamp),
  context: Type.Optional(Content),
});
export type FactRecord = Static<typeof FactRecord>;

/** A checkpoint in an export file or an import call. */
export const CheckpointRecord = Type.Object({
  type: Type.Literal('checkpoint'),
  agentId: AgentId,
  id: Ulid,
  createdAt: Timestamp,
  state: CheckpointState,
  messageCount: Type.Optional(MessageCount),
});
export type CheckpointRecord = Static<typeof CheckpointRecord>;

/** A record of an export file, after its header line. */
export const ExportRecord = Type.Union([FactRecord, CheckpointRecord]);
export type ExportRecord = Static<typeof ExportRecord>;

/** The first line of an export file (written by memoryctl, not the daemon). */
export const ExportHeader = Type.Object({
  type: Type.Literal('memoryd-export'),
  version: Type.Literal(1),
  createdAt: Timestamp,
  daemonVersion: Type.String(),
});
export type ExportHeader = Static<typeof ExportHeader>;
