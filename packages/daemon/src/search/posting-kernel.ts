import { B, K1 } from './bm25.js';
import { BLOCK, type PostingBlocks } from './posting-blocks.js';
import { TABLE_F, TABLE_LENGTH } from './part-table.js';
import { POSTING_KERNEL_WASM } from './posting-kernel-wasm.js';

/** Slots whose part tables live in the kernel's memory; a slot past them has its table in JS, and its blocks are read in JS. */
export const KERNEL_TABLES = 8;
/** The most bytes a block takes: a gap and a frequency, each a varint of at most 5 bytes, per posting. */
const BLOCK_BYTES = BLOCK * 10;
/**
 * Bytes of blocks copied into the kernel's memory at once, when a list's
 * blocks lie one after the other (as an image's do): a window's blocks of
 * a common word, read newest first, then come from one copy.
 */
const STAGE_BYTES = 8 * 1024;

/**
 * Where a read of postings puts what it finds (WindowReader.read, and the
 * kernel's readBlock for it), one of three ways:
 * - `best` false and `parts` null (accumulate): each part added to
 *   `scores` by offset, the offset listed in `offsets` (when `listed` is
 *   given) once its sum is `floor` or more;
 * - `parts` given (collect): each posting whose part is above `floor`
 *   listed in `offsets`, its part in `parts`;
 * - `best` true (keep the best): `scores` keeps the best part of each
 *   offset (0: none yet), the offset listed in `offsets` when it gets its
 *   first (a prefix's completions: a fact scores by its best one).
 * One object a search per way of reading, its floor set for each window.
 */
export interface ReadInto {
  scores: Float64Array | null;
  listed: Uint8Array | null;
  offsets: Uint32Array;
  floor: number;
  parts: Float64Array | null;
  best: boolean;
  /** For the kernel (set by {@link PostingKernel.into}): the way, as posting-kernel.wat numbers it, and where the arrays lie in its memory. */
  readonly mode: number;
  readonly scoresAt: number;
  readonly listedAt: number;
  readonly offsetsAt: number;
  readonly partsAt: number;
}

/** The arrays of a way of reading: a {@link ReadInto} without what the kernel derives. */
export type ReadWay = Pick<ReadInto, 'scores' | 'listed' | 'offsets' | 'parts' | 'best'>;

interface Exports {
  memory: WebAssembly.Memory;
  read(
    src: number,
    count: number,
    o: number,
    last: number,
    table: number,
    weight: number,
    avg: number,
    mode: number,
    n: number,
    floor: number,
    scores: number,
    listed: number,
    offsets: number,
    parts: number,
    alive: number,
    lengths: number,
  ): number;
}

/**
 * The hot loop of a search in WebAssembly (posting-kernel.wat): a sealed
 * block's postings in a window, decoded and scored one by one, as WindowReader.read does in JavaScript and with the same
 * doubles. Compiled ahead of time, it runs at full speed from a daemon's
 * first search, where the JavaScript loop ran interpreted, then baseline
 * code, for a few hundred searches (V8's warm-up); and it takes some
 * 6-14 ns a posting where the warm JavaScript took 24-35.
 *
 * Its memory holds what a window's scoring writes (the working arrays of
 * max-score.ts, which views them here), the part tables of the first
 * {@link KERNEL_TABLES} slots, and copies of what it reads: the window's
 * `alive` and `lengths` (once per window and search) and each block's
 * bytes. The index's own arrays stay where they are. The memory never
 * grows, so the views never go stale.
 */
export class PostingKernel {
  readonly scores: Float64Array;
  readonly candidates: Uint32Array;
  readonly survivors: Uint32Array;
  readonly survivorParts: Float64Array;
  readonly isCandidate: Uint8Array;
  /** A prefix's best parts by offset, and the offsets that have one. */
  readonly bestParts: Float64Array;
  readonly bestOffsets: Uint32Array;
  readonly #exports: Exports;
  readonly #buffer: ArrayBuffer;
  readonly #bytes: Uint8Array;
  readonly #tables: Float64Array[] = [];
  readonly #alive: Uint8Array;
  readonly #lengths: Uint32Array;
  readonly #window: number;
  /** Where blocks' bytes are copied to, and which bytes are there (`#stagedLo` to `#stagedHi` of `#stagedBytes`, copied in search `#stagedSearch`). */
  readonly #stageAt: number;
  #stagedBytes: Uint8Array | null = null;
  #stagedSearch = -1;
  #stagedLo = 0;
  #stagedHi = 0;
  readonly #aliveAt: number;
  readonly #lengthsAt: number;
  /** The window whose `alive` and `lengths` are in memory: its base, the search it was copied for, and the arrays. */
  #loadedBase = -1;
  #loadedSearch = -1;
  #loadedAlive: Uint8Array | null = null;
  #loadedLengths: Uint32Array | null = null;
  #search = 0;

  constructor(window: number) {
    const module = new WebAssembly.Module(Buffer.from(POSTING_KERNEL_WASM, 'base64'));
    const model = {
      k1p1: new WebAssembly.Global({ value: 'f64' }, K1 + 1),
      k1: new WebAssembly.Global({ value: 'f64' }, K1),
      omb: new WebAssembly.Global({ value: 'f64' }, 1 - B),
      b: new WebAssembly.Global({ value: 'f64' }, B),
      tableF: new WebAssembly.Global({ value: 'i32' }, TABLE_F),
      tableLength: new WebAssembly.Global({ value: 'i32' }, TABLE_LENGTH),
    };
    this.#exports = new WebAssembly.Instance(module, { model }).exports as unknown as Exports;
    this.#window = window;
    // Laid out 8-byte aligned: f64 arrays first.
    let at = 0;
    const take = (bytes: number): number => {
      const start = at;
      at += Math.ceil(bytes / 8) * 8;
      return start;
    };
    const scoresAt = take(8 * window);
    const partsAt = take(8 * window);
    const bestAt = take(8 * window);
    const tablesAt = take(8 * TABLE_F * TABLE_LENGTH * KERNEL_TABLES);
    const candidatesAt = take(4 * window);
    const survivorsAt = take(4 * window);
    const bestOffsetsAt = take(4 * window);
    const lengthsAt = take(4 * window);
    const isCandidateAt = take(window);
    const aliveAt = take(window);
    this.#stageAt = take(Math.max(STAGE_BYTES, BLOCK_BYTES));
    const memory = this.#exports.memory;
    const pages = Math.ceil(at / 65536) - memory.buffer.byteLength / 65536;
    if (pages > 0) memory.grow(pages);
    this.#buffer = memory.buffer;
    this.#bytes = new Uint8Array(this.#buffer);
    this.scores = new Float64Array(this.#buffer, scoresAt, window);
    this.survivorParts = new Float64Array(this.#buffer, partsAt, window);
    this.bestParts = new Float64Array(this.#buffer, bestAt, window);
    this.bestOffsets = new Uint32Array(this.#buffer, bestOffsetsAt, window);
    for (let t = 0; t < KERNEL_TABLES; t++) this.#tables.push(new Float64Array(this.#buffer, tablesAt + 8 * TABLE_F * TABLE_LENGTH * t, TABLE_F * TABLE_LENGTH));
    this.candidates = new Uint32Array(this.#buffer, candidatesAt, window);
    this.survivors = new Uint32Array(this.#buffer, survivorsAt, window);
    this.#lengths = new Uint32Array(this.#buffer, lengthsAt, window);
    this.isCandidate = new Uint8Array(this.#buffer, isCandidateAt, window);
    this.#alive = new Uint8Array(this.#buffer, aliveAt, window);
    this.#aliveAt = aliveAt;
    this.#lengthsAt = lengthsAt;
  }

  /** Slot `s`'s part table in the kernel's memory (unset: NaN), if it has one there. */
  table(s: number): Float64Array | undefined {
    return this.#tables[s]?.fill(NaN);
  }

  /** Whether `a` (or nothing) lies in the kernel's memory, where the kernel can write it. */
  holds(a: Float64Array | Uint32Array | Uint8Array | null): boolean {
    return a === null || a.buffer === this.#buffer;
  }

  /**
   * A way of reading into arrays in the kernel's memory (the only arrays
   * it writes): checked once, here, not at every block.
   */
  into(way: ReadWay): ReadInto {
    const { scores, listed, offsets, parts, best } = way;
    if (!(this.holds(scores) && this.holds(listed) && this.holds(offsets) && this.holds(parts))) throw new Error('the posting kernel writes only arrays in its own memory');
    if (best ? scores === null || listed !== null || parts !== null : parts !== null ? scores !== null || listed !== null : scores === null) {
      throw new Error('a way of reading is to keep the best (scores), to collect (parts) or to accumulate (scores, maybe listed)');
    }
    return {
      scores,
      listed,
      offsets,
      floor: 0,
      parts,
      best,
      mode: best ? 3 : parts !== null ? 2 : listed !== null ? 1 : 0,
      scoresAt: scores === null ? 0 : scores.byteOffset,
      listedAt: listed === null ? 0 : listed.byteOffset,
      offsetsAt: offsets.byteOffset,
      partsAt: parts === null ? 0 : parts.byteOffset,
    };
  }

  /** A search begins: the `alive` and `lengths` copied for the last one may be stale (facts added or removed since). */
  startSearch(): void {
    this.#search++;
  }

  /**
   * Reads the postings of block `b` in the window [base, hi], as
   * WindowReader.read does (see there and posting-kernel.wat), into
   * `into` (made by {@link into}) from offset `n`; `table` is used when it
   * lies in the kernel's memory (else parts are computed: the same
   * doubles). Returns the new count of offsets.
   */
  readBlock(
    blocks: PostingBlocks,
    b: number,
    base: number,
    hi: number,
    alive: Uint8Array,
    lengths: Uint32Array,
    table: Float64Array,
    weight: number,
    avg: number,
    into: ReadInto,
    n: number,
  ): number {
    if (this.#loadedBase !== base || this.#loadedSearch !== this.#search || this.#loadedAlive !== alive || this.#loadedLengths !== lengths) {
      if (hi - base + 1 > this.#window) throw new Error(`a window of ${hi - base + 1} facts is wider than the kernel's ${this.#window}`);
      this.#alive.set(alive.subarray(base, hi + 1));
      this.#lengths.set(lengths.subarray(base, hi + 1));
      this.#loadedBase = base;
      this.#loadedSearch = this.#search;
      this.#loadedAlive = alive;
      this.#loadedLengths = lengths;
    }
    const count = blocks.count[b]!;
    const off = blocks.off[b]!;
    const bytes = blocks.bytes;
    // At most to the end of the blocks: bytes past it are not written yet.
    const end = Math.min(blocks.byteSize, off + 10 * count);
    // Copied in this search from these very bytes: a block's bytes never
    // change while it lives (a pack writes a new array), but a search
    // never trusts an earlier one's copy all the same.
    if (this.#stagedSearch !== this.#search || this.#stagedBytes !== bytes || off < this.#stagedLo || end > this.#stagedHi) {
      // The list's older blocks are read next: when they lie just below
      // this one, copy them with it.
      const lo = blocks.prev[b] === b - 1 ? Math.max(0, end - STAGE_BYTES) : off;
      this.#bytes.set(bytes.subarray(lo, end), this.#stageAt);
      this.#stagedSearch = this.#search;
      this.#stagedBytes = bytes;
      this.#stagedLo = lo;
      this.#stagedHi = end;
    }
    return this.#exports.read(
      this.#stageAt + off - this.#stagedLo,
      count,
      blocks.first[b]! - base,
      hi - base,
      table.buffer === this.#buffer ? table.byteOffset : -1,
      weight,
      avg,
      into.mode,
      n,
      into.floor,
      into.scoresAt,
      into.listedAt,
      into.offsetsAt,
      into.partsAt,
      this.#aliveAt,
      this.#lengthsAt,
    );
  }
}
