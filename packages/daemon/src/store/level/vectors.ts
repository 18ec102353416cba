import type { Fact } from '@memoryd/protocol';
import { decodeError } from '../../errors.js';
import type { FactChange, StoredVector, VectorClaim, VectorStore } from '../vector-store.js';
import { type StoredFact, decodeFact } from './codec.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { toFact } from './facts.js';
import { agentRange, recordKey, splitKey } from './keys.js';
import { WriteBatch } from './write-batch.js';
import { quantizeInt8 } from '../int8-vector.js';

/**
 * A vector as its record holds it: the space, a newline, the scale, a
 * newline, then the components as int8s of that scale in base64 (each
 * component is about int8 × scale). Search scans int8s anyway
 * (embed/vector-index.ts), so nothing it uses is lost, and a record is a
 * quarter of float32's: less to write beside each add and to read at start.
 */
export function encodeVector(space: string, vector: Float32Array): string {
  const values = new Int8Array(vector.length);
  // A zero vector keeps a scale of 1: a record's scale is never 0.
  const scale = quantizeInt8(vector, values) || 1;
  return `${space}\n${scale}\n${Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64')}`;
}

/** The space and vector of a record; a malformed one is a Decode error naming it. */
export function decodeVector(what: string, text: string): { space: string; vector: Float32Array } {
  const at = text.indexOf('\n');
  const at2 = at < 0 ? -1 : text.indexOf('\n', at + 1);
  const scale = at2 < 0 ? NaN : Number(text.slice(at + 1, at2));
  const bytes = at2 < 0 ? Buffer.alloc(0) : Buffer.from(text.slice(at2 + 1), 'base64');
  if (at <= 0 || !(scale > 0) || bytes.length === 0) throw decodeError(what, new Error('expected <space>\\n<scale>\\n<base64 of int8s>'));
  const vector = new Float32Array(bytes.length);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readInt8(i) * scale;
  return { space: text.slice(0, at), vector };
}

/** Vectors (and facts) read at a time when an agent's vectors load. */
const LOAD_PAGE = 1_000;

/** The id part of a record key of `agentId`. */
function idOf(key: string): string {
  return splitKey(key).rest;
}

/**
 * The vectors of meaning search on LevelDB (store/vector-store.ts): one
 * record per current fact under `!vec!` (keys.ts), written after the
 * fact's own batch by the embedding queue, deleted by the batch that takes
 * the fact out of the current set (write-batch.ts commit).
 */
export class LevelVectors implements VectorStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async agentsWithFacts(): Promise<Array<{ agentId: string; facts: number }>> {
    return [...this.#ctx.counters.entries()].filter(([, s]) => s.facts > 0).map(([agentId, s]) => ({ agentId, facts: s.facts }));
  }

  async loadVectors(space: string, agentId: string, accept: (page: readonly StoredVector[]) => void, signal?: AbortSignal): Promise<string[]> {
    const { subs } = this.#ctx;
    const range = agentRange(agentId);
    const facts = subs.fact.iterator(range);
    const vecs = subs.vec.iterator(range);
    const missing: string[] = [];
    const orphans: string[] = [];
    try {
      // Both are in key order (<agent>\0<fact id>): a merge of the two, a page of each at a time.
      let factPage: Array<[string, string]> = [];
      let vecPage: Array<[string, string]> = [];
      let f = 0;
      let v = 0;
      const nextFact = async (): Promise<string | undefined> => {
        if (f === factPage.length) {
          factPage = await guard(`read facts of agent ${agentId}`, () => facts.nextv(LOAD_PAGE));
          f = 0;
        }
        return f < factPage.length ? idOf(factPage[f]![0]) : undefined;
      };
      const nextVec = async (): Promise<[string, string] | undefined> => {
        if (v === vecPage.length) {
          vecPage = await guard(`read vectors of agent ${agentId}`, () => vecs.nextv(LOAD_PAGE));
          v = 0;
        }
        return v < vecPage.length ? vecPage[v] : undefined;
      };
      let page: StoredVector[] = [];
      for (;;) {
        const factId = await nextFact();
        const entry = await nextVec();
        if (factId === undefined && entry === undefined) break;
        const vecId = entry === undefined ? undefined : idOf(entry[0]);
        if (vecId !== undefined && (factId === undefined || vecId < factId)) {
          orphans.push(vecId);
          v++;
          continue;
        }
        f++;
        if (entry === undefined || vecId !== factId || vecId === undefined) {
          missing.push(factId!);
          continue;
        }
        v++;
        const decoded = decodeVector(`vector of fact ${vecId} of agent ${agentId}`, entry[1]);
        if (decoded.space !== space) missing.push(vecId);
        else page.push({ id: vecId, vector: decoded.vector });
        if (page.length === LOAD_PAGE) {
          accept(page);
          page = [];
          await new Promise((resolve) => setImmediate(resolve));
          signal?.throwIfAborted();
        }
      }
      if (page.length > 0) accept(page);
    } finally {
      await Promise.allSettled([facts.close(), vecs.close()]);
    }
    if (orphans.length > 0) await this.#deleteOrphans(agentId, orphans);
    return missing;
  }

  /** One daemon owns a LevelDB store: every fact is its to embed. */
  async claimVectors(_space: string, _agentId: string, ids: readonly string[]): Promise<VectorClaim> {
    return { ids: [...ids], release: async () => {} };
  }

  async readVectors(space: string, agentId: string, ids: readonly string[]): Promise<StoredVector[]> {
    if (ids.length === 0) return [];
    const texts = await guard(`read vectors of agent ${agentId}`, () => this.#ctx.subs.vec.getMany(ids.map((id) => recordKey(agentId, id))));
    const out: StoredVector[] = [];
    texts.forEach((text, i) => {
      if (text === undefined) return;
      const decoded = decodeVector(`vector of fact ${ids[i]} of agent ${agentId}`, text);
      if (decoded.space === space) out.push({ id: ids[i]!, vector: decoded.vector });
    });
    return out;
  }

  async textsToEmbed(agentId: string, ids: readonly string[]): Promise<Array<{ id: string; text: string }>> {
    return (await this.#facts(agentId, ids)).map((f) => ({ id: f.id, text: f.content }));
  }

  async readFacts(agentId: string, ids: readonly string[]): Promise<Fact[]> {
    return (await this.#facts(agentId, ids)).map((f) => toFact(f));
  }

  async putVectors(space: string, agentId: string, vectors: readonly StoredVector[]): Promise<string[]> {
    if (vectors.length === 0) return [];
    const ctx = this.#ctx;
    // Under the agent's lock: a fact deleted between the check and the write would leave its vector behind.
    return ctx.lock.run([agentId], async () => {
      const current = await guard(`read facts of agent ${agentId}`, () => ctx.subs.fact.getMany(vectors.map((v) => recordKey(agentId, v.id))));
      const batch = new WriteBatch();
      const stored: string[] = [];
      vectors.forEach((v, i) => {
        if (current[i] === undefined) return;
        batch.put(ctx.subs.vec, recordKey(agentId, v.id), encodeVector(space, v.vector));
        stored.push(v.id);
      });
      // Unsynced: a vector lost to a crash is embedded again (its fact has none), and no add waits on its fsync.
      if (batch.ops.length > 0) await guard(`store vectors of agent ${agentId}`, () => ctx.writer.writeUnsynced(batch.ops));
      return stored;
    });
  }

  async dropVectors(): Promise<void> {
    await guard('delete the vectors', () => this.#ctx.subs.vec.clear());
  }

  onFactChanges(listener: (changes: readonly FactChange[]) => void): void {
    this.#ctx.factListeners.push(listener);
  }

  /** This daemon makes every change to its LevelDB: it misses none, so it never asks for a resync. */
  onResync(_listener: () => void): void {}

  /** Current facts among `ids`, in order: from the search's fact cache where it has them, one read for the rest. */
  async #facts(agentId: string, ids: readonly string[]): Promise<StoredFact[]> {
    if (ids.length === 0) return [];
    const { facts: cache, subs } = this.#ctx;
    const found: Array<StoredFact | undefined> = ids.map((id) => cache.get(agentId, id));
    const unread = ids.filter((_, i) => found[i] === undefined);
    if (unread.length > 0) {
      const texts = await guard(`read facts of agent ${agentId}`, () => subs.fact.getMany(unread.map((id) => recordKey(agentId, id))));
      const read = new Map<string, StoredFact>();
      unread.forEach((id, i) => {
        const text = texts[i];
        if (text !== undefined) read.set(id, decodeFact(`fact ${id} of agent ${agentId}`, text, id));
      });
      ids.forEach((id, i) => {
        if (found[i] === undefined) found[i] = read.get(id);
      });
    }
    return found.filter((f): f is StoredFact => f !== undefined);
  }

  async #deleteOrphans(agentId: string, ids: readonly string[]): Promise<void> {
    const ctx = this.#ctx;
    await ctx.lock.run([agentId], async () => {
      const current = await guard(`read facts of agent ${agentId}`, () => ctx.subs.fact.getMany(ids.map((id) => recordKey(agentId, id))));
      const batch = new WriteBatch();
      ids.forEach((id, i) => {
        if (current[i] === undefined) batch.del(ctx.subs.vec, recordKey(agentId, id));
      });
      if (batch.ops.length > 0) await guard(`delete stale vectors of agent ${agentId}`, () => ctx.writer.writeUnsynced(batch.ops));
    });
  }
}
