import type {
  AdminExport,
  AdminImport,
  AgentList,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  MemoryAdd,
  MemoryHistory,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  MemoryTags,
  ParamsOf,
  ResultOf,
} from '@memoryd/protocol';
import type { VectorStore } from './vector-store.js';

/**
 * A lexical search's answer: `memory.search`'s result, and the BM25 a fact
 * of average length would get by holding every query word once
 * (search/resident-index.ts, `fullMatch`), where the engine knows it.
 * Meaning search divides by it; it never goes on the wire.
 */
export interface LexicalResult extends ResultOf<typeof MemorySearch> {
  fullMatch?: number;
  /**
   * Given only for a filtered search: whether a fact (by id) passes the
   * filter, for the vector side of a fused search; null when the store
   * cannot tell by id (PostgreSQL answering by SQL), and the fused search
   * is then lexical.
   */
  passes?: ((id: string) => boolean) | null;
}

/** Counts of `daemon.status`. */
export interface StoreCounts {
  /** Current facts, all agents. */
  facts: number;
  /** Checkpoints, all agents. */
  checkpoints: number;
  /** Agents with at least one current fact or checkpoint. */
  agents: number;
}

/**
 * What the RPC layer needs of the store. Params arrive validated against
 * the method's schema (the store does not recheck them); failures are
 * DaemonErrors (NotFound, InvalidParams for rules a schema cannot express,
 * Storage, Decode), never an empty success.
 *
 * The one seam between the RPC layer and a backend (ADR 0027): what only
 * one engine has (LevelDB's search memory, say) is on that backend's own
 * handle, not here.
 */
export interface MemoryStore {
  addFact(p: ParamsOf<typeof MemoryAdd>): Promise<ResultOf<typeof MemoryAdd>>;
  /** `memory.search`'s lexical answer, with what a fused search scales its scores by (embed/fusion.ts). */
  searchFacts(p: ParamsOf<typeof MemorySearch>): Promise<LexicalResult>;
  listFacts(p: ParamsOf<typeof MemoryList>): Promise<ResultOf<typeof MemoryList>>;
  reflect(p: ParamsOf<typeof MemoryReflect>): Promise<ResultOf<typeof MemoryReflect>>;
  /** `memory.history`: every version of the fact's chain, oldest first (store/rules/fact-history.ts). */
  history(p: ParamsOf<typeof MemoryHistory>): Promise<ResultOf<typeof MemoryHistory>>;
  /** `memory.tags`: the tags of the agent's current facts, normalised, with their counts. */
  tags(p: ParamsOf<typeof MemoryTags>): Promise<ResultOf<typeof MemoryTags>>;
  saveCheckpoint(p: ParamsOf<typeof CheckpointSave>): Promise<ResultOf<typeof CheckpointSave>>;
  resumeCheckpoint(p: ParamsOf<typeof CheckpointResume>): Promise<ResultOf<typeof CheckpointResume>>;
  listCheckpoints(p: ParamsOf<typeof CheckpointList>): Promise<ResultOf<typeof CheckpointList>>;
  listAgents(p: ParamsOf<typeof AgentList>): Promise<ResultOf<typeof AgentList>>;
  exportPage(p: ParamsOf<typeof AdminExport>): Promise<ResultOf<typeof AdminExport>>;
  importRecords(p: ParamsOf<typeof AdminImport>): Promise<ResultOf<typeof AdminImport>>;
  counts(): Promise<StoreCounts>;
  /**
   * `ok`, or `read-only: CAUSE` while writes are refused because one
   * failed (daemon.status's `health`); reads go on meanwhile.
   */
  health(): string;
  /** The vectors of meaning search, kept beside the facts (store/vector-store.ts). */
  vectors(): VectorStore;
  /** Waits for writes in progress, closes export cursors, then the backend (LevelDB, or PostgreSQL's pools and listener). */
  close(): Promise<void>;
}

/** The params of a MemoryStore method. */
export type StoreParams<K extends keyof MemoryStore> = Parameters<MemoryStore[K]>[0];
/** What a MemoryStore method returns. */
export type StoreResult<K extends keyof MemoryStore> = ReturnType<MemoryStore[K]>;
