import type { Fact } from '@memoryd/protocol';

/** A fact's vector in one space (embed/embedder.ts, `space`). */
export interface StoredVector {
  id: string;
  vector: Float32Array;
}

/**
 * Facts this daemon may embed: no other daemon on the store embeds them
 * until {@link release} (or until this daemon's connection is gone, should
 * it die meanwhile).
 */
export interface VectorClaim {
  /** The facts claimed, of those asked for; the others are another daemon's to embed. */
  ids: string[];
  /** Gives the claim up; never fails (a claim that cannot be given up goes with its connection). */
  release(): Promise<void>;
}

/** A fact entering (+1) or leaving (−1) its agent's current set. */
export interface FactChange {
  agentId: string;
  id: string;
  sign: 1 | -1;
}

/**
 * What meaning search (embed/embeddings.ts) needs of a backend
 * (docs/embeddings.md): the vectors kept beside the facts, one per current
 * fact, tagged with the space they were made in, deleted with the fact
 * when it stops being current. What is still to embed is known from the
 * store (current facts without a vector of the space), never only from
 * memory, so a restart loses nothing.
 */
export interface VectorStore {
  /** Agents with at least one current fact, and how many each has. */
  agentsWithFacts(): Promise<Array<{ agentId: string; facts: number }>>;
  /**
   * An agent's stored vectors of `space`, for its current facts, given to
   * `accept` a page at a time (an agent may have a million: neither they
   * nor their records are ever all in memory at once as objects, and the
   * event loop gets its turn between pages); resolves with the current
   * facts without one (or with one of another space). Vectors left by a
   * fact no longer current are deleted on the way. `signal` ends it between
   * two pages (it then rejects with the signal's reason).
   */
  loadVectors(space: string, agentId: string, accept: (page: readonly StoredVector[]) => void, signal?: AbortSignal): Promise<string[]>;
  /** The stored vectors of `space` among `ids` (another daemon may have made them). */
  readVectors(space: string, agentId: string, ids: readonly string[]): Promise<StoredVector[]>;
  /** The text to embed of each current fact among `ids`; a fact no longer current is left out. */
  textsToEmbed(agentId: string, ids: readonly string[]): Promise<Array<{ id: string; text: string }>>;
  /**
   * Claims the embedding of `ids` in `space`: on a store that several
   * daemons share, each fact is embedded by one daemon at a time, so a
   * paid provider is asked once per fact, not once per daemon. A store
   * that one daemon owns claims them all.
   */
  claimVectors(space: string, agentId: string, ids: readonly string[]): Promise<VectorClaim>;
  /** Stores vectors of `space`, replacing any other; returns the ids stored (facts still current). */
  putVectors(space: string, agentId: string, vectors: readonly StoredVector[]): Promise<string[]>;
  /** Deletes every stored vector, of every space (a rebuild). */
  dropVectors(): Promise<void>;
  /** The current facts among `ids`, as search returns them (no score); a fact no longer current is left out. */
  readFacts(agentId: string, ids: readonly string[]): Promise<Fact[]>;
  /**
   * Calls `listener` after every committed change to the current facts:
   * this daemon's writes, and on a shared store other daemons' too.
   */
  onFactChanges(listener: (changes: readonly FactChange[]) => void): void;
  /**
   * Calls `listener` when changes may have been missed (on a shared store,
   * once the connection that hears of other daemons' writes is back after
   * it was lost, or when the rows of changed facts could not be read): what
   * the listener holds must be read again. A store
   * that hears of every change never calls it.
   */
  onResync(listener: () => void): void;
}
