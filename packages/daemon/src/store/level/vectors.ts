import type { Fact } from '@memoryd/protocol';
import { decodeError } from '../../errors.js';
import type { FactChange, StoredVector, VectorStore } from '../vector-store.js';
import { decodeFact } from './codec.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { toFact } from './facts.js';
import { agentRange, recordKey, splitKey } from './keys.js';
import { WriteBatch } from './stats.js';

/**
 * A vector as its record holds it: the space, a newline, the scale, a
 * newline, then the components as int8s of that scale in base64 (each
 * component is about int8 × scale). Search scans int8s anyway
 * (embed/vector-index.ts), so nothing it uses is lost, and a record is a
 * quarter of float32's: less to write beside each add and to read at start.
 */
export function encodeVector(space: string, vector: Float32Array): string {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const scale = max === 0 ? 1 : max / 127;
  const bytes = Buffer.alloc(vector.length);
  for (let i = 0; i < vector.length; i++) bytes.writeInt8(Math.round(vector[i]! / scale), i);
  return `${space}\n${scale}\n${bytes.toString('base64')}`;
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

/** The id part of a record key of `agentId`. */
function idOf(key: string): string {
  return splitKey(key).rest;
}

/**
 * The vectors of meaning search on LevelDB (store/vector-store.ts): one
 * record per current fact under `!vec!` (keys.ts), written after the
 * fact's own batch by the embedding queue, deleted by the batch that takes
 * the fact out of the current set (stats.ts commit).
 */
export class LevelVectors implements VectorStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async agentsWithFacts(): Promise<Array<{ agentId: string; facts: number }>> {
    return [...this.#ctx.counters.entries()].filter(([, s]) => s.facts > 0).map(([agentId, s]) => ({ agentId, facts: s.facts }));
  }

  async loadVectors(space: string, agentId: string): Promise<{ vectors: StoredVector[]; missing: string[] }> {
    const { subs } = this.#ctx;
    const [facts, stored] = await Promise.all([
      guard(`read facts of agent ${agentId}`, () => subs.fact.iterator(agentRange(agentId)).all()),
      guard(`read vectors of agent ${agentId}`, () => subs.vec.iterator(agentRange(agentId)).all()),
    ]);
    const current = new Set(facts.map(([key]) => idOf(key)));
    const vectors: StoredVector[] = [];
    const orphans: string[] = [];
    const have = new Set<string>();
    for (const [key, text] of stored) {
      const id = idOf(key);
      if (!current.has(id)) {
        orphans.push(id);
        continue;
      }
      const decoded = decodeVector(`vector of fact ${id} of agent ${agentId}`, text);
      if (decoded.space !== space) continue;
      vectors.push({ id, vector: decoded.vector });
      have.add(id);
    }
    if (orphans.length > 0) await this.#deleteOrphans(agentId, orphans);
    return { vectors, missing: [...current].filter((id) => !have.has(id)) };
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

  async factTexts(agentId: string, ids: readonly string[]): Promise<Array<{ id: string; text: string }>> {
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

  async #facts(agentId: string, ids: readonly string[]) {
    if (ids.length === 0) return [];
    const texts = await guard(`read facts of agent ${agentId}`, () => this.#ctx.subs.fact.getMany(ids.map((id) => recordKey(agentId, id))));
    const out = [];
    for (let i = 0; i < ids.length; i++) {
      const text = texts[i];
      if (text !== undefined) out.push(decodeFact(`fact ${ids[i]} of agent ${agentId}`, text, ids[i]!));
    }
    return out;
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
