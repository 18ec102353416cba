import { quantizeInt8 } from '../store/int8-vector.js';
import { VECTOR_KERNEL_WASM } from './vector-kernel-wasm.js';

/** One hit of a vector search: a fact and its cosine similarity to the query (−1 to 1). */
export interface VectorHit {
  id: string;
  score: number;
}

/** A scan of every vector for one query: the best hits, and the cosines' distribution over all of them. */
export interface VectorScan {
  hits: VectorHit[];
  /** Vectors scanned. */
  count: number;
  /** The mean and the (population) standard deviation of the query's cosine over them (over evenly spaced ones, past a few thousand). */
  mean: number;
  deviation: number;
}

/** What this file uses of WebAssembly (TypeScript's types for it come with the DOM library, which a daemon does not load). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

const kernelModule = new WebAssembly.Module(Buffer.from(VECTOR_KERNEL_WASM, 'base64'));

/**
 * A scan's distribution of cosines is taken over at most about this many
 * rows, evenly spaced: its deviation is then within a few percent of every
 * row's (a standard error near 1/√(2 × 2048) of it), and a scan of 100,000
 * rows does not pay a second pass over all of them.
 */
const DISTRIBUTION_SAMPLE = 2_048;
const PAGE = 65_536;

interface Kernel {
  memory: WasmMemory;
  dotI8(q: number, rows: number, n: number, dims: number, out: number): void;
}

/**
 * The quantised form of a vector (store/int8-vector.ts), written into
 * `into`; answers what the dot product of two quantised rows is multiplied
 * by, for each, to give their cosine: its scale over its length.
 */
function quantize(vector: Float32Array, into: Int8Array): number {
  const scale = quantizeInt8(vector, into);
  if (scale === 0) return 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  return scale / Math.sqrt(norm);
}

/**
 * One agent's vectors of one space, in memory, for an exact scan
 * (docs/embeddings.md, "Vector search"; ADR 0034): every vector is kept as
 * int8 at its own scale (a quarter of float32's memory and bandwidth, an
 * error in the cosine near 0.01), in the linear memory of its own instance
 * of the WebAssembly kernel, which scans 16 dimensions an instruction. A
 * removed row is filled by the last one, so the rows stay dense.
 *
 * Memory layout: the query (`stride` bytes), the scores (4 bytes a row of
 * capacity), then the rows (`stride` bytes each).
 */
export class VectorIndex {
  readonly dimensions: number;
  /** Bytes a row takes: dimensions rounded up to 16. */
  readonly #stride: number;
  readonly #kernel: Kernel;
  #capacity = 0;
  #ids: string[] = [];
  #rowOf = new Map<string, number>();
  #scales = new Float32Array(0);
  readonly #scratch: Int8Array;

  constructor(dimensions: number) {
    if (!Number.isSafeInteger(dimensions) || dimensions < 1 || dimensions > 65_536) throw new RangeError(`a vector index needs 1 to 65536 dimensions, got ${dimensions}`);
    this.dimensions = dimensions;
    this.#stride = Math.ceil(dimensions / 16) * 16;
    this.#scratch = new Int8Array(dimensions);
    this.#kernel = new WebAssembly.Instance(kernelModule, {}).exports as unknown as Kernel;
    this.#grow(64);
  }

  /** Vectors held. */
  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#rowOf.has(id);
  }

  /** Adds `id`'s vector, or replaces it. Its length must be the index's dimensions. */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`vector of ${vector.length} dimensions in an index of ${this.dimensions}`);
    let row = this.#rowOf.get(id);
    if (row === undefined) {
      if (this.#ids.length === this.#capacity) this.#grow(this.#capacity * 2);
      row = this.#ids.length;
      this.#ids.push(id);
      this.#rowOf.set(id, row);
    }
    this.#scales[row] = quantize(vector, this.#scratch);
    const bytes = new Int8Array(this.#kernel.memory.buffer, this.#rowsAt() + row * this.#stride, this.#stride);
    bytes.fill(0);
    bytes.set(this.#scratch);
  }

  /** Removes `id`'s vector; false when it had none. */
  delete(id: string): boolean {
    const row = this.#rowOf.get(id);
    if (row === undefined) return false;
    this.#rowOf.delete(id);
    const last = this.#ids.length - 1;
    const lastId = this.#ids.pop()!;
    if (row !== last) {
      const memory = new Uint8Array(this.#kernel.memory.buffer);
      const rows = this.#rowsAt();
      memory.copyWithin(rows + row * this.#stride, rows + last * this.#stride, rows + (last + 1) * this.#stride);
      this.#scales[row] = this.#scales[last]!;
      this.#ids[row] = lastId;
      this.#rowOf.set(lastId, row);
    }
    return true;
  }

  /**
   * The `k` vectors most similar to `query` (cosine, best first; ties: the
   * later id first, as lexical search breaks them), with the mean and
   * standard deviation of the query's cosine over the vectors (what a fused
   * search measures a cosine against, embed/fusion.ts): over all of them up
   * to {@link DISTRIBUTION_SAMPLE}, over evenly spaced ones past that.
   * `accept` (a filtered search's) keeps out of the hits the facts it
   * refuses, asked only of those good enough to enter; the distribution
   * stays the agent's.
   */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorScan {
    if (query.length !== this.dimensions) throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimensions}`);
    const n = this.#ids.length;
    const empty: VectorScan = { hits: [], count: n, mean: 0, deviation: 0 };
    if (n === 0) return empty;
    const qScale = quantize(query, this.#scratch);
    if (qScale === 0) return empty;
    const buffer = this.#kernel.memory.buffer;
    const q = new Int8Array(buffer, 0, this.#stride);
    q.fill(0);
    q.set(this.#scratch);
    this.#kernel.dotI8(0, this.#rowsAt(), n, this.#stride, this.#stride);
    const dots = new Int32Array(this.#kernel.memory.buffer, this.#stride, n);
    // A small sorted list (k is a search's candidates, at most a few hundred).
    const best: Array<{ row: number; score: number }> = [];
    let threshold = -Infinity;
    for (let row = 0; row < n; row++) {
      const score = dots[row]! * this.#scales[row]! * qScale;
      if (k <= 0 || score < threshold || (score === threshold && best.length === k)) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]!.score < score || (best[at - 1]!.score === score && this.#ids[best[at - 1]!.row]! < this.#ids[row]!))) at--;
      if (at >= k || (accept !== undefined && !accept(this.#ids[row]!))) continue;
      best.splice(at, 0, { row, score });
      if (best.length > k) best.pop();
      if (best.length === k) threshold = best[k - 1]!.score;
    }
    // The distribution from every row up to DISTRIBUTION_SAMPLE rows, from evenly spaced ones past that.
    const stride = Math.max(1, Math.floor(n / DISTRIBUTION_SAMPLE));
    let sum = 0;
    let squares = 0;
    let sampled = 0;
    for (let row = 0; row < n; row += stride, sampled++) {
      const score = dots[row]! * this.#scales[row]! * qScale;
      sum += score;
      squares += score * score;
    }
    const mean = sum / sampled;
    return {
      hits: best.map(({ row, score }) => ({ id: this.#ids[row]!, score: Math.max(-1, Math.min(1, score)) })),
      count: n,
      mean,
      deviation: Math.sqrt(Math.max(0, squares / sampled - mean * mean)),
    };
  }

  /** The cosine of `query` with each of `ids` that has a vector (a fused search's lexical candidates). */
  similarities(query: Float32Array, ids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (query.length !== this.dimensions) throw new RangeError(`query of ${query.length} dimensions in an index of ${this.dimensions}`);
    const qScale = quantize(query, this.#scratch);
    if (qScale === 0) return out;
    const memory = new Int8Array(this.#kernel.memory.buffer);
    const rows = this.#rowsAt();
    for (const id of ids) {
      const row = this.#rowOf.get(id);
      if (row === undefined) continue;
      let dot = 0;
      for (let i = 0, p = rows + row * this.#stride; i < this.dimensions; i++, p++) dot += this.#scratch[i]! * memory[p]!;
      out.set(id, Math.max(-1, Math.min(1, dot * this.#scales[row]! * qScale)));
    }
    return out;
  }

  /** Where the rows start: after the query and the scores. */
  #rowsAt(capacity = this.#capacity): number {
    return this.#stride + capacity * 4;
  }

  /** Makes room for `capacity` rows, moving the rows up past the larger score area. */
  #grow(capacity: number): void {
    const oldRows = this.#rowsAt();
    const used = this.#ids.length * this.#stride;
    const need = this.#rowsAt(capacity) + capacity * this.#stride;
    const memory = this.#kernel.memory;
    if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
    if (this.#capacity > 0 && used > 0) new Uint8Array(memory.buffer).copyWithin(this.#rowsAt(capacity), oldRows, oldRows + used);
    const scales = new Float32Array(capacity);
    scales.set(this.#scales.subarray(0, this.#ids.length));
    this.#scales = scales;
    this.#capacity = capacity;
  }
}
