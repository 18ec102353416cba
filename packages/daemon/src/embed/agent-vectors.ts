import type { StoredVector } from '../store/vector-store.js';
import { VectorIndex } from './vector-index.js';

/** One agent's vectors: the index searches scan, and the one a load is filling. */
interface AgentEntry {
  live: VectorIndex | undefined;
  load: { index: VectorIndex | undefined; gone: Set<string> } | undefined;
}

/**
 * Every agent's vectors of the embedder's space, in memory (one
 * {@link VectorIndex} an agent), all of one dimension count: the first
 * vector seen sets it, and a vector of another length is refused, to be
 * embedded again.
 *
 * A load (at start, after a failed one, or to catch up with changes that
 * went unheard) fills a new index while searches keep scanning the old
 * one; facts that leave meanwhile are kept out of the new one, and it
 * replaces the old one when the load ends.
 */
export class AgentVectors {
  readonly #agents = new Map<string, AgentEntry>();
  #dimensions = 0;

  /** The vectors' dimensions; 0 until the first vector is known. */
  get dimensions(): number {
    return this.#dimensions;
  }

  /** Vectors held, all agents (loads in progress not counted). */
  get size(): number {
    let n = 0;
    for (const { live } of this.#agents.values()) n += live?.size ?? 0;
    return n;
  }

  /** The index searches scan for the agent, if it has one. */
  index(agentId: string): VectorIndex | undefined {
    return this.#agents.get(agentId)?.live;
  }

  /** Whether the agent's fact has a vector (in its index, or in the one a load is filling). */
  has(agentId: string, id: string): boolean {
    const entry = this.#agents.get(agentId);
    return entry !== undefined && (entry.live?.has(id) === true || entry.load?.index?.has(id) === true);
  }

  /** Adds or replaces vectors; answers the ids of those refused for their length. */
  put(agentId: string, vectors: readonly StoredVector[]): string[] {
    const entry = this.#entry(agentId);
    const refused: string[] = [];
    for (const v of vectors) {
      if (!this.#fits(v.vector)) {
        refused.push(v.id);
        continue;
      }
      (entry.live ??= new VectorIndex(this.#dimensions)).set(v.id, v.vector);
      if (entry.load !== undefined) (entry.load.index ??= new VectorIndex(this.#dimensions)).set(v.id, v.vector);
    }
    return refused;
  }

  /** A fact left the agent's current facts: its vector goes, now and from a load in progress. */
  remove(agentId: string, id: string): void {
    const entry = this.#agents.get(agentId);
    if (entry === undefined) return;
    entry.live?.delete(id);
    if (entry.load !== undefined) {
      entry.load.gone.add(id);
      entry.load.index?.delete(id);
    }
  }

  /** A fact became current again (a change heard twice): a load may keep it. */
  readmit(agentId: string, id: string): void {
    this.#agents.get(agentId)?.load?.gone.delete(id);
  }

  /** Starts filling a new index for the agent. */
  beginLoad(agentId: string): void {
    this.#entry(agentId).load = { index: undefined, gone: new Set() };
  }

  /** A page of the load; answers the ids refused for their length. */
  loadPage(agentId: string, vectors: readonly StoredVector[]): string[] {
    const load = this.#agents.get(agentId)?.load;
    if (load === undefined) return [];
    const refused: string[] = [];
    for (const v of vectors) {
      if (load.gone.has(v.id)) continue;
      if (!this.#fits(v.vector)) refused.push(v.id);
      else (load.index ??= new VectorIndex(this.#dimensions)).set(v.id, v.vector);
    }
    return refused;
  }

  /** The load is whole: its index replaces the old one. Answers the facts that left meanwhile. */
  endLoad(agentId: string): Set<string> {
    const entry = this.#agents.get(agentId);
    const load = entry?.load;
    if (entry === undefined || load === undefined) return new Set();
    entry.live = load.index;
    entry.load = undefined;
    if (entry.live === undefined) this.#agents.delete(agentId);
    return load.gone;
  }

  /** The load failed or was abandoned: searches keep the old index. */
  abandonLoad(agentId: string): void {
    const entry = this.#agents.get(agentId);
    if (entry === undefined) return;
    entry.load = undefined;
    if (entry.live === undefined) this.#agents.delete(agentId);
  }

  /** Forgets everything, the dimensions too (a rebuild). */
  clear(): void {
    this.#agents.clear();
    this.#dimensions = 0;
  }

  #entry(agentId: string): AgentEntry {
    let entry = this.#agents.get(agentId);
    if (entry === undefined) this.#agents.set(agentId, (entry = { live: undefined, load: undefined }));
    return entry;
  }

  #fits(vector: Float32Array): boolean {
    if (this.#dimensions === 0 && vector.length > 0) this.#dimensions = vector.length;
    return vector.length === this.#dimensions;
  }
}
