import { B, K1 } from './bm25.js';
import { BLOCK, type PostingBlocks } from './posting-blocks.js';
import { TABLE_F, TABLE_LENGTH } from './part-table.js';
import { POSTING_KERNEL_WASM } from './posting-kernel-wasm.js';
import { swapPair } from './typed-arrays.js';

/**
 * For bench:search's A/B runs only (issue 29): MEMORYD_BENCH_NO_KERNEL=1
 * leaves every read and settle to the JavaScript paths.
 */
export const KERNEL_ON = process.env['MEMORYD_BENCH_NO_KERNEL'] !== '1';

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

/**
 * The kernel's two ways over one part of a list (read and scan): the
 * part at `at` of `count` postings, `o` and `hi` placing it against the
 * window, then the part table, the weight and the average length, the
 * way of taking each part (ReadInto's, from `mode` to `parts`) and the
 * window's `alive` and `lengths`. Returns the new n.
 */
type BlockRead = (
  at: number,
  count: number,
  o: number,
  hi: number,
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
) => number;

interface Exports {
  memory: WebAssembly.Memory;
  /** posting-kernel.wat's read: a sealed block's bytes at `at`. */
  read: BlockRead;
  addBest(offsets: number, count: number, best: number, scores: number, own: number, listed: number, candidates: number, n: number, bar: number): number;
  decode(src: number, count: number, o: number, docs: number): void;
  /** posting-kernel.wat's scan: a decoded block's (or tail's) postings at `at`. */
  scan: BlockRead;
  settle(
    from: number,
    ns: number,
    n: number,
    lone: number,
    own: number,
    prefix: number,
    full: number,
    threshold: number,
    ordered: number,
    avg: number,
    survivors: number,
    survivorParts: number,
    best: number,
    lengths: number,
    slots: number,
    order: number,
    lists: number,
    parts: number,
    state: number,
    result: number,
  ): number;
}

/**
 * Wide blocks and tails kept decoded in the kernel's memory at once
 * (readBlock, readTail): one per block or tail a search reads so.
 */
const SCAN_BUFFERS = 32;

/**
 * Where block `b`'s bytes end, at the most: its postings take up to 10
 * bytes each, and no further than the end of the blocks written (bytes
 * past it are not written yet, and a copy of them would go stale).
 */
function blockEnd(blocks: PostingBlocks, b: number): number {
  return Math.min(blocks.byteSize, blocks.off[b]! + 10 * blocks.count[b]!);
}

/**
 * Where a copy of block `b` (ending at `end`) starts: up to `chunk` bytes
 * below its end when the list's next older block is numbered just below
 * it (as an image holds a list, and mostly as a list's runs do: read
 * newest first, the older ones come from the same copy), else at the
 * block itself.
 */
function copyFrom(blocks: PostingBlocks, b: number, end: number, chunk: number): number {
  return blocks.prev[b] === b - 1 ? Math.max(0, end - chunk) : blocks.off[b]!;
}

/** Slots a window's settling in the kernel takes at most (more: settled in JS). */
export const KERNEL_SLOTS = 16;
/** Lists probed in one window's settling, at most. */
const SETTLE_LISTS = 64;
/** Parts (a tail or a block) of those lists in the window, at most. */
const SETTLE_PARTS = 1024;
/** Bytes of blocks and tails copied for one window's probes, at most. */
const PROBE_STAGE_BYTES = 256 * 1024;
/** Bytes of a list's blocks copied at once when they lie one after the other. */
const PROBE_CHUNK_BYTES = 4 * 1024;
/** The kinds of slot of a window's settling (posting-kernel.wat's settle). */
export const SETTLE_KNOWN = 0;
export const SETTLE_PROBED = 1;
export const SETTLE_KEPT = 2;
export const SETTLE_FILLED = 3;

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
  /** The memory as i32s. */
  readonly #words: Int32Array;
  readonly #tables: Float64Array[] = [];
  readonly #freqs: Uint32Array[] = [];
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
  // A window's settling (settleStart to settle).
  readonly #slotsAt: number;
  readonly #orderAt: number;
  readonly #stateAt: number;
  readonly #resultAt: number;
  readonly #listsAt: number;
  readonly #partsAt: number;
  readonly #buffersAt: number;
  readonly #probeStageAt: number;
  /** The tails of a window's settling, one place per list. */
  readonly #tailsAt: number;
  /** Decoded blocks and tails (1 KB each), and what each holds: whose (the blocks, or a tail's pairs), in which search, which (a block, or -1 - a tail's start). */
  readonly #scanAt: number;
  readonly #scanOwner: (object | null)[] = new Array<object | null>(SCAN_BUFFERS).fill(null);
  // What aim set.
  #aimBase = 0;
  #aimHi = 0;
  #aimAlive: Uint8Array | null = null;
  #aimLengths: Uint32Array | null = null;
  #aimTable = -1;
  #aimWeight = 0;
  #aimAvg = 0;
  #aimInto: ReadInto | null = null;
  readonly #scanSearch: number[] = new Array<number>(SCAN_BUFFERS).fill(-1);
  readonly #scanWhat: number[] = new Array<number>(SCAN_BUFFERS).fill(-2);
  readonly #scanCount: number[] = new Array<number>(SCAN_BUFFERS).fill(0);
  #scanNext = 0;
  readonly #slotF64: Float64Array;
  readonly #slotI32: Int32Array;
  readonly #order: Int32Array;
  readonly #listI32: Int32Array;
  readonly #partI32: Int32Array;
  readonly #result: Float64Array;
  #settleBase = 0;
  #settleSlots = 0;
  #settleLists = 0;
  #settleParts = 0;
  #probeUsed = 0;
  /** The bytes last copied for probes: `#chunkLo` to `#chunkHi` of `#chunkBytes`, at `#chunkAt`. */
  #chunkBytes: Uint8Array | null = null;
  /** Per part of a window's settling that is a block: whose blocks, and which. */
  readonly #partBlocks: (PostingBlocks | null)[] = new Array<PostingBlocks | null>(SETTLE_PARTS).fill(null);
  readonly #partBlock: number[] = new Array<number>(SETTLE_PARTS).fill(0);
  #chunkLo = 0;
  #chunkHi = 0;
  #chunkAt = 0;
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
    const host = { stage: (p: number): number => this.#stagePart(p) };
    this.#exports = new WebAssembly.Instance(module, { model, host }).exports as unknown as Exports;
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
    const freqsAt = take(4 * window * KERNEL_SLOTS);
    const candidatesAt = take(4 * window);
    const survivorsAt = take(4 * window);
    const bestOffsetsAt = take(4 * window);
    const lengthsAt = take(4 * window);
    const isCandidateAt = take(window);
    const aliveAt = take(window);
    this.#stageAt = take(Math.max(STAGE_BYTES, BLOCK_BYTES));
    // A window's settling: slots (32 bytes), the order, the state (known,
    // present, parts), the score to offer, lists (32 bytes), their parts
    // (20 bytes), a buffer of 1 KB per list, and the copied bytes.
    const slotsAt = take(32 * KERNEL_SLOTS);
    this.#orderAt = take(4 * KERNEL_SLOTS);
    this.#stateAt = take(256);
    this.#resultAt = take(8);
    const listsAt = take(32 * SETTLE_LISTS);
    const settlePartsAt = take(20 * SETTLE_PARTS);
    this.#buffersAt = take(1024 * SETTLE_LISTS);
    this.#probeStageAt = take(PROBE_STAGE_BYTES);
    this.#scanAt = take(1024 * SCAN_BUFFERS);
    this.#tailsAt = take(1024 * SETTLE_LISTS);
    this.#slotsAt = slotsAt;
    this.#listsAt = listsAt;
    this.#partsAt = settlePartsAt;
    const memory = this.#exports.memory;
    const pages = Math.ceil(at / 65536) - memory.buffer.byteLength / 65536;
    if (pages > 0) memory.grow(pages);
    this.#buffer = memory.buffer;
    this.#bytes = new Uint8Array(this.#buffer);
    this.#words = new Int32Array(this.#buffer);
    this.scores = new Float64Array(this.#buffer, scoresAt, window);
    this.survivorParts = new Float64Array(this.#buffer, partsAt, window);
    this.bestParts = new Float64Array(this.#buffer, bestAt, window);
    this.bestOffsets = new Uint32Array(this.#buffer, bestOffsetsAt, window);
    for (let t = 0; t < KERNEL_TABLES; t++) this.#tables.push(new Float64Array(this.#buffer, tablesAt + 8 * TABLE_F * TABLE_LENGTH * t, TABLE_F * TABLE_LENGTH));
    for (let t = 0; t < KERNEL_SLOTS; t++) this.#freqs.push(new Uint32Array(this.#buffer, freqsAt + 4 * window * t, window));
    this.candidates = new Uint32Array(this.#buffer, candidatesAt, window);
    this.survivors = new Uint32Array(this.#buffer, survivorsAt, window);
    this.#lengths = new Uint32Array(this.#buffer, lengthsAt, window);
    this.isCandidate = new Uint8Array(this.#buffer, isCandidateAt, window);
    this.#alive = new Uint8Array(this.#buffer, aliveAt, window);
    this.#aliveAt = aliveAt;
    this.#lengthsAt = lengthsAt;
    this.#slotF64 = new Float64Array(this.#buffer, slotsAt, 4 * KERNEL_SLOTS);
    this.#slotI32 = new Int32Array(this.#buffer, slotsAt, 8 * KERNEL_SLOTS);
    this.#order = new Int32Array(this.#buffer, this.#orderAt, KERNEL_SLOTS);
    this.#listI32 = new Int32Array(this.#buffer, listsAt, 8 * SETTLE_LISTS);
    this.#partI32 = new Int32Array(this.#buffer, settlePartsAt, 5 * SETTLE_PARTS);
    this.#result = new Float64Array(this.#buffer, this.#resultAt, 1);
  }

  /** Slot `s`'s frequencies by window offset (all 0 when it is handed out), if the kernel's memory has room for them. */
  freqs(s: number): Uint32Array | undefined {
    return this.#freqs[s];
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
   * Sets what the next reads take (WindowReader.read, once per list and
   * window): the window [base, hi] with its `alive` and `lengths`, the
   * slot's part table (used when it lies in the kernel's memory, else
   * parts are computed: the same doubles), weight and average length, and
   * the way of taking each part (`into`, made by {@link into}).
   */
  aim(base: number, hi: number, alive: Uint8Array, lengths: Uint32Array, table: Float64Array, weight: number, avg: number, into: ReadInto): void {
    this.#aimBase = base;
    this.#aimHi = hi;
    this.#aimAlive = alive;
    this.#aimLengths = lengths;
    this.#aimTable = table.buffer === this.#buffer ? table.byteOffset : -1;
    this.#aimWeight = weight;
    this.#aimAvg = avg;
    this.#aimInto = into;
  }

  /**
   * Reads the postings of block `b` in the window {@link aim}ed at, as
   * WindowReader.read does (see there and posting-kernel.wat), newest
   * first, into its `into` from offset `n`. A block no wider than the
   * window is decoded and read; a wider one (a rarer word's) is decoded
   * once a search and kept decoded for the other windows it spans.
   * Returns the new count of offsets.
   */
  readBlock(blocks: PostingBlocks, b: number, n: number): number {
    const base = this.#aimBase;
    const hi = this.#aimHi;
    this.holdWindow(base, hi, this.#aimAlive!, this.#aimLengths!);
    const count = blocks.count[b]!;
    if (blocks.last[b]! - blocks.first[b]! > hi - base) {
      let buffer = this.#scanFind(blocks, b);
      if (buffer < 0) {
        buffer = this.#scanTake(blocks, b);
        this.#exports.decode(this.#stage(blocks, b), count, blocks.first[b]!, this.#scanAt + 1024 * buffer);
        this.#scanCount[buffer] = count;
      }
      return this.#take(this.#exports.scan, this.#scanAt + 1024 * buffer, this.#scanCount[buffer]!, base, hi, n);
    }
    const end = this.#take(this.#exports.read, this.#stage(blocks, b), count, blocks.first[b]! - base, hi - base, n);
    // Decoded oldest first: a list turned round to newest first.
    const { offsets, parts } = this.#aimInto!;
    if (parts !== null) {
      for (let i = n, j = end - 1; i < j; i++, j--) swapPair(offsets, parts, i, j);
    }
    return end;
  }

  /** Sets the best parts of the first `count` offsets {@link bestOffsets} lists back to 0 (none for a count of 0 or less). */
  clearBest(count: number): void {
    const parts = this.bestParts;
    const offsets = this.bestOffsets;
    for (let i = 0; i < count; i++) parts[offsets[i]!] = 0;
  }

  /**
   * Adds the prefix's best parts, `count` of them listed in
   * {@link bestOffsets} (kept in {@link bestParts} by a read of the way
   * {@link into} calls `best`), to {@link scores}, except where `ownFreqs`
   * (null: none) says the fact holds the prefix's own word; sets them back
   * to 0; and lists in {@link candidates} (from `n`, flagged in
   * {@link isCandidate}) each offset not listed yet whose sum is `bar` or
   * more. Returns the new count of candidates, or -1 having done nothing
   * when `ownFreqs` is not in the kernel's memory.
   */
  addBest(count: number, ownFreqs: Uint32Array | null, n: number, bar: number): number {
    if (ownFreqs !== null && ownFreqs.buffer !== this.#buffer) return -1;
    return this.#exports.addBest(
      this.bestOffsets.byteOffset,
      count,
      this.bestParts.byteOffset,
      this.scores.byteOffset,
      ownFreqs === null ? -1 : ownFreqs.byteOffset,
      this.isCandidate.byteOffset,
      this.candidates.byteOffset,
      n,
      bar,
    );
  }

  /**
   * Reads a list's tail (`size` pairs of ordinal and frequency from
   * `pairs[at]`, oldest first) in the window {@link aim}ed at, as
   * {@link readBlock} reads a wide block, copied in once a search.
   * Returns the new n, or -1 having done nothing for a tail of more than
   * a block's postings.
   */
  readTail(pairs: Uint32Array, at: number, size: number, n: number): number {
    if (size > BLOCK) return -1;
    this.holdWindow(this.#aimBase, this.#aimHi, this.#aimAlive!, this.#aimLengths!);
    // A tail is known by its pairs and where it starts in them.
    let buffer = this.#scanFind(pairs, -1 - at);
    if (buffer < 0) {
      buffer = this.#scanTake(pairs, -1 - at);
      this.#copyPairs(pairs, at, size, 0, this.#scanAt + 1024 * buffer);
      this.#scanCount[buffer] = size;
    }
    return this.#take(this.#exports.scan, this.#scanAt + 1024 * buffer, this.#scanCount[buffer]!, this.#aimBase, this.#aimHi, n);
  }

  /**
   * Copies `size` pairs (ordinal, frequency) from `pairs[at]` to `dst` as
   * a decoded block lies there: the ordinals less `base` (i32), then the
   * frequencies 512 bytes on.
   */
  #copyPairs(pairs: Uint32Array, at: number, size: number, base: number, dst: number): void {
    const words = this.#words;
    for (let i = 0, w = dst >> 2; i < size; i++, w++) {
      words[w] = pairs[at + 2 * i]! - base;
      words[w + 128] = pairs[at + 2 * i + 1]!;
    }
  }

  #scanFind(owner: object, what: number): number {
    for (let i = 0; i < SCAN_BUFFERS; i++) {
      if (this.#scanOwner[i] === owner && this.#scanWhat[i] === what && this.#scanSearch[i] === this.#search) return i;
    }
    return -1;
  }

  #scanTake(owner: object, what: number): number {
    const i = this.#scanNext;
    this.#scanNext = (i + 1) % SCAN_BUFFERS;
    this.#scanOwner[i] = owner;
    this.#scanWhat[i] = what;
    this.#scanSearch[i] = this.#search;
    return i;
  }

  /** Runs `way` (read or scan) over the part at `at`, as {@link aim} set, the window held. */
  #take(way: BlockRead, at: number, count: number, o: number, hi: number, n: number): number {
    const into = this.#aimInto!;
    return way(
      at,
      count,
      o,
      hi,
      this.#aimTable,
      this.#aimWeight,
      this.#aimAvg,
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

  /** Copies block `b`'s bytes in (with the list's older blocks when they lie just below), unless there; returns where they are. */
  #stage(blocks: PostingBlocks, b: number): number {
    const off = blocks.off[b]!;
    const bytes = blocks.bytes;
    const end = blockEnd(blocks, b);
    // Copied in this search from these very bytes: a block's bytes never
    // change while it lives (a pack writes a new array), but a search
    // never trusts an earlier one's copy all the same.
    if (this.#stagedSearch !== this.#search || this.#stagedBytes !== bytes || off < this.#stagedLo || end > this.#stagedHi) {
      const lo = copyFrom(blocks, b, end, STAGE_BYTES);
      this.#bytes.set(bytes.subarray(lo, end), this.#stageAt);
      this.#stagedSearch = this.#search;
      this.#stagedBytes = bytes;
      this.#stagedLo = lo;
      this.#stagedHi = end;
    }
    return this.#stageAt + off - this.#stagedLo;
  }

  /** Whether this search copied the window at `base`'s `alive` and `lengths` in already (what a scan of a few postings would not repay). */
  holdsWindow(base: number, alive: Uint8Array, lengths: Uint32Array): boolean {
    return this.#loadedBase === base && this.#loadedSearch === this.#search && this.#loadedAlive === alive && this.#loadedLengths === lengths;
  }

  /** Copies the window's `alive` and `lengths` in, unless this search copied them already. */
  holdWindow(base: number, hi: number, alive: Uint8Array, lengths: Uint32Array): void {
    if (this.holdsWindow(base, alive, lengths)) return;
    if (hi - base + 1 > this.#window) throw new Error(`a window of ${hi - base + 1} facts is wider than the kernel's ${this.#window}`);
    this.#alive.set(alive.subarray(base, hi + 1));
    this.#lengths.set(lengths.subarray(base, hi + 1));
    this.#loadedBase = base;
    this.#loadedSearch = this.#search;
    this.#loadedAlive = alive;
    this.#loadedLengths = lengths;
  }

  /**
   * Begins settling the survivors of the window [base, hi] in the kernel
   * (max-score.ts: a window read for its one essential slot). Then, for
   * each slot in order, {@link settleSlot}; for a probed slot, each of its
   * lists ({@link settleList}) with its parts in the window, newest first
   * (WindowReader.probeParts: {@link settleTail}, {@link settleBlock});
   * then {@link settle}. A false return means it does not fit: the caller
   * settles the window in JavaScript instead.
   */
  settleStart(base: number, hi: number, alive: Uint8Array, lengths: Uint32Array): void {
    this.holdWindow(base, hi, alive, lengths);
    this.#settleBase = base;
    this.#settleSlots = 0;
    this.#settleLists = 0;
    this.#settleParts = 0;
    this.#probeUsed = 0;
    this.#chunkBytes = null;
  }

  /**
   * The next slot: its window bound, weight and part table, and its kind:
   * SETTLE_KNOWN (absent, or the lone slot), SETTLE_PROBED, SETTLE_KEPT
   * (the prefix's best parts in {@link bestParts}) or SETTLE_FILLED (read
   * whole: the frequencies by offset in `freqs`, in the kernel's memory).
   */
  settleSlot(ub: number, weight: number, table: Float64Array, kind: number, freqs: Uint32Array): boolean {
    const s = this.#settleSlots;
    if (s >= KERNEL_SLOTS || (kind === SETTLE_FILLED && freqs.buffer !== this.#buffer)) return false;
    this.#slotF64[4 * s] = ub;
    this.#slotF64[4 * s + 1] = weight;
    this.#slotI32[8 * s + 4] = table.buffer === this.#buffer ? table.byteOffset : -1;
    this.#slotI32[8 * s + 5] = kind;
    this.#slotI32[8 * s + 6] = kind === SETTLE_FILLED ? freqs.byteOffset : this.#settleLists;
    this.#slotI32[8 * s + 7] = 0;
    this.#settleSlots = s + 1;
    return true;
  }

  /** The next list of the last slot. */
  settleList(): boolean {
    const l = this.#settleLists;
    if (l >= SETTLE_LISTS || this.#settleSlots === 0) return false;
    const list = this.#listI32;
    list[8 * l] = this.#settleParts;
    list[8 * l + 1] = 0;
    list[8 * l + 2] = 0;
    list[8 * l + 3] = -1;
    list[8 * l + 6] = this.#buffersAt + 1024 * l;
    this.#slotI32[8 * (this.#settleSlots - 1) + 7]!++;
    this.#settleLists = l + 1;
    this.#chunkBytes = null;
    return true;
  }

  /** The last list's tail, as it overlaps the window: `size` pairs (ordinal, frequency) from `pairs[at]`, oldest first. */
  settleTail(pairs: Uint32Array, at: number, size: number): boolean {
    if (size > BLOCK || this.#settleLists === 0) return false;
    const base = this.#settleBase;
    // A list has one tail: in its own place (offsets, then frequencies 512 bytes on).
    const dst = this.#tailsAt + 1024 * (this.#settleLists - 1);
    this.#copyPairs(pairs, at, size, base, dst);
    return this.#settlePart(pairs[at]! - base, pairs[at + 2 * (size - 1)]! - base, size, dst, 1);
  }

  /** Block `b`, the last list's next part in the window. */
  settleBlock(blocks: PostingBlocks, b: number): boolean {
    const p = this.#settleParts;
    const base = this.#settleBase;
    if (!this.#settlePart(blocks.first[b]! - base, blocks.last[b]! - base, blocks.count[b]!, -1, 0)) return false;
    // Its bytes are copied in at its first probe (#stagePart), if any comes.
    this.#partBlocks[p] = blocks;
    this.#partBlock[p] = b;
    return true;
  }

  /** The kernel's host import: copies settle's part `p` (a block) into the probe stage; returns where its bytes are. */
  #stagePart(p: number): number {
    const blocks = this.#partBlocks[p]!;
    const b = this.#partBlock[p]!;
    const off = blocks.off[b]!;
    const bytes = blocks.bytes;
    const end = blockEnd(blocks, b);
    if (this.#chunkBytes !== bytes || off < this.#chunkLo || end > this.#chunkHi) {
      const lo = copyFrom(blocks, b, end, PROBE_CHUNK_BYTES);
      if (this.#probeUsed + (end - lo) > PROBE_STAGE_BYTES) {
        // The stage is full: every part is copied in again when next probed
        // (what was decoded stays in the lists' buffers).
        for (let q = 0; q < this.#settleParts; q++) if (this.#partI32[5 * q + 4] === 0) this.#partI32[5 * q + 3] = -1;
        this.#probeUsed = 0;
      }
      this.#chunkAt = this.#probeStageAt + this.#probeUsed;
      this.#bytes.set(bytes.subarray(lo, end), this.#chunkAt);
      this.#probeUsed += end - lo;
      this.#chunkBytes = bytes;
      this.#chunkLo = lo;
      this.#chunkHi = end;
    }
    return this.#chunkAt + off - this.#chunkLo;
  }

  #settlePart(first: number, last: number, count: number, src: number, decoded: number): boolean {
    const p = this.#settleParts;
    if (p >= SETTLE_PARTS || this.#settleLists === 0) return false;
    const part = this.#partI32;
    part[5 * p] = first;
    part[5 * p + 1] = last;
    part[5 * p + 2] = count;
    part[5 * p + 3] = src;
    part[5 * p + 4] = decoded;
    this.#listI32[8 * (this.#settleLists - 1) + 1]!++;
    this.#settleParts = p + 1;
    return true;
  }

  /**
   * Settles facts `from` to `ns` - 1 (window offsets in `facts`, in the
   * kernel's memory; with a `lone` slot, its parts in
   * {@link survivorParts}) as max-score.ts's
   * settle does, each in turn: returns the first to offer, its score in
   * {@link settledScore}, or `ns` when none is left. `full`: k facts are
   * held, `threshold` the k-th score; with `ordered`, a bound equal to it
   * prunes too. `order`: the slots, weakest window bound first.
   */
  settle(
    facts: Uint32Array,
    from: number,
    ns: number,
    lone: number,
    own: number,
    prefix: number,
    full: boolean,
    threshold: number,
    ordered: boolean,
    avg: number,
    order: readonly number[],
  ): number {
    const n = this.#settleSlots;
    for (let j = 0; j < n; j++) this.#order[j] = order[j]!;
    return this.#exports.settle(
      from,
      ns,
      n,
      lone,
      own,
      prefix,
      full ? 1 : 0,
      threshold,
      ordered ? 1 : 0,
      avg,
      facts.byteOffset,
      this.survivorParts.byteOffset,
      this.bestParts.byteOffset,
      this.#lengthsAt,
      this.#slotsAt,
      this.#orderAt,
      this.#listsAt,
      this.#partsAt,
      this.#stateAt,
      this.#resultAt,
    );
  }

  /** The score of the survivor {@link settle} returned. */
  get settledScore(): number {
    return this.#result[0]!;
  }
}
