import type { IndexSnapshot } from './index-image.js';
import { atLeast } from './typed-arrays.js';
import { FRONT, addToFrontier, frontierBound, setFrontier } from './score-frontier.js';

/** Postings per sealed block: a list's newest postings wait in its tail until this many. */
export const BLOCK = 128;

/**
 * A list's bytes after its first block go into runs of its own (extents)
 * at the end of the bytes, each twice the last up to this many bytes, and
 * its blocks' numbers into runs as long as its blocks so far, up to
 * {@link RUN_MAX}: so a list's blocks lie mostly one after the other, in
 * their bytes and their numbers, however the lists' seals take turns.
 */
const EXTENT_MAX = 64 * 1024;
const RUN_MAX = 64;

const u32 = (n: number) => new Uint32Array(n);
const u8 = (n: number) => new Uint8Array(n);
/** Block numbers: -1 (none) where nothing is set. */
const i32 = (n: number) => new Int32Array(n).fill(-1);

/**
 * The sealed part of every posting list of one index: blocks of
 * {@link BLOCK} postings in fact-ordinal order, each stored as varint
 * gaps and frequencies (about 2 bytes a posting for common words, where a
 * plain pair costs 8), with its first and last ordinal (skip data) and
 * its score frontier (score-frontier.ts: the few (frequency, length) pairs
 * that bound what any of its postings scores, whatever the average length
 * is when a search asks). A list's blocks are chained from its
 * newest (`head`) down through `prev`, the order searches walk them in.
 *
 * Per list it also keeps the frontier of every posting it ever held (tail
 * included): the list's score bound.
 *
 * Lists seal in turns as facts come in; a list's blocks after its first
 * take their bytes and numbers from runs of its own ({@link EXTENT_MAX},
 * {@link RUN_MAX}), so that a search walking a common word's blocks reads
 * memory mostly in order rather than jumping over every other list's.
 */
export class PostingBlocks {
  bytes: Uint8Array = new Uint8Array(64 * 1024);
  off: Uint32Array = new Uint32Array(256);
  first: Uint32Array = new Uint32Array(256);
  last: Uint32Array = new Uint32Array(256);
  count: Uint8Array = new Uint8Array(256);
  /** Per block: its score frontier (score-frontier.ts), {@link FRONT} pairs from `2 × FRONT × block`. */
  front: Uint32Array = new Uint32Array(2 * FRONT * 256);
  prev: Int32Array = new Int32Array(256);
  /** Per list: its newest block, or -1. */
  head: Int32Array = new Int32Array(64).fill(-1);
  /** Per list: the score frontier of every posting it ever held, tail included. */
  listFront: Uint32Array = new Uint32Array(2 * FRONT * 64);
  /** Per list: the postings its blocks hold. */
  sealed: Uint32Array = new Uint32Array(64);
  #blocks = 0;
  #postings = 0;
  readonly #fs = new Uint32Array(BLOCK);
  readonly #lens = new Uint32Array(BLOCK);
  /** A block's bytes as seal encodes them, before they are placed. */
  readonly #encoded = new Uint8Array(10 * BLOCK);
  readonly #freeBlocks: number[] = [];
  #end = 0;
  #garbage = 0;
  /**
   * Per block `b`: at `2b` the average length a search last asked its
   * bound at (NaN: never, or the block was sealed again since), at
   * `2b + 1` its frontier's best saturation at that average. Not part of
   * the snapshot: worked out again as searches ask.
   */
  #best: Float64Array = new Float64Array(0);
  /**
   * Per list: the room left in its current run of bytes (from `extentAt`
   * to `extentEnd`) and how big that run was made; and its current run of
   * block numbers (from `runAt` to `runEnd`). All 0 until it needs one.
   * Not part of the snapshot: a restored index starts new runs.
   */
  #extentAt: Uint32Array = new Uint32Array(64);
  #extentEnd: Uint32Array = new Uint32Array(64);
  #extentSize: Uint32Array = new Uint32Array(64);
  #runAt: Int32Array = new Int32Array(64);
  #runEnd: Int32Array = new Int32Array(64);

  /** Bytes the blocks take (garbage included): what the sealed postings cost. */
  get byteSize(): number {
    return this.#end;
  }

  /** Bytes all the arrays take in memory (room included). */
  get memoryBytes(): number {
    let bytes = 0;
    for (const a of [this.bytes, this.off, this.first, this.last, this.count, this.front, this.prev, this.head, this.listFront, this.sealed, this.#best, this.#extentAt, this.#extentEnd, this.#extentSize, this.#runAt, this.#runEnd]) {
      bytes += a.byteLength;
    }
    return bytes;
  }

  /**
   * The blocks as data: the arrays cut to what they hold, not copied,
   * when each list's blocks already lie one after the other, oldest
   * first, in both their numbers and their bytes (as an index restored
   * from an image holds them, until it seals more);
   * else the blocks laid out so, in new arrays ({@link #laidOut}).
   */
  snapshot(): IndexSnapshot {
    if (!this.#inListOrder()) return this.#laidOut();
    const n = this.#blocks;
    return {
      meta: { blocks: n, freeBlocks: this.#freeBlocks, end: this.#end, garbage: this.#garbage, postings: this.#postings },
      arrays: {
        bytes: this.bytes.subarray(0, this.#end),
        off: this.off.subarray(0, n),
        first: this.first.subarray(0, n),
        last: this.last.subarray(0, n),
        count: this.count.subarray(0, n),
        front: this.front.subarray(0, 2 * FRONT * n),
        prev: this.prev.subarray(0, n),
        head: this.head,
        listFront: this.listFront,
        sealed: this.sealed,
      },
    };
  }

  /** Whether no block is free, each block's older one is the number just below (or none), and bytes follow the numbers. */
  #inListOrder(): boolean {
    if (this.#freeBlocks.length > 0 || this.#garbage > 0) return false;
    for (let b = 0; b < this.#blocks; b++) {
      const p = this.prev[b]!;
      if ((p !== -1 && p !== b - 1) || (b > 0 && this.off[b]! <= this.off[b - 1]!)) return false;
    }
    return true;
  }

  /**
   * The blocks as data with each list's blocks one after the other,
   * oldest first, numbered and stored so (no free block, no garbage):
   * the layout an image is written in.
   *
   * Why: blocks sealed as facts come in (an import into an index that
   * exists) take their numbers and bytes in turns with every other list's,
   * so a search reading a common word's blocks newest first jumps about
   * 30 MB of bytes and the per-block arrays at a million facts, missing
   * the caches at every block. Laid out by list, the bench's 2,000 Zipf
   * queries took 15-20% less time in process (sum 1,411-1,522 -> 1,165-
   * 1,326 ms, p99 7.0-7.8 -> 5.6-6.1 ms), with the same answers; and a
   * list's older blocks then come into the kernel with the block read
   * before them (posting-kernel.ts's copyFrom).
   */
  #laidOut(): IndexSnapshot {
    const heads = this.head;
    // Sized for every block and byte; cut to what the lists hold below.
    const bytes = new Uint8Array(this.#end);
    const off = new Uint32Array(this.#blocks);
    const first = new Uint32Array(this.#blocks);
    const last = new Uint32Array(this.#blocks);
    const count = new Uint8Array(this.#blocks);
    const front = new Uint32Array(2 * FRONT * this.#blocks);
    const prev = new Int32Array(this.#blocks);
    const head = new Int32Array(heads.length).fill(-1);
    const sizes = new Uint32Array(this.#blocks);
    let n = 0;
    let total = 0;
    for (let l = 0; l < heads.length; l++) {
      // The list's blocks and bytes, newest first: numbered and placed from their ends down.
      let blocks = 0;
      let size = 0;
      for (let b = heads[l]!; b >= 0; b = this.prev[b]!) {
        blocks++;
        size += sizes[b] = this.#encodedSize(b);
      }
      if (blocks === 0) continue;
      let id = n + blocks - 1;
      let end = total + size;
      head[l] = id;
      for (let b = heads[l]!; b >= 0; b = this.prev[b]!, id--) {
        end -= sizes[b]!;
        bytes.set(this.bytes.subarray(this.off[b]!, this.off[b]! + sizes[b]!), end);
        off[id] = end;
        first[id] = this.first[b]!;
        last[id] = this.last[b]!;
        count[id] = this.count[b]!;
        front.set(this.front.subarray(2 * FRONT * b, 2 * FRONT * (b + 1)), 2 * FRONT * id);
        prev[id] = id === n ? -1 : id - 1;
      }
      n += blocks;
      total += size;
    }
    return {
      meta: { blocks: n, freeBlocks: [], end: total, garbage: 0, postings: this.#postings },
      arrays: {
        bytes: bytes.subarray(0, total),
        off: off.subarray(0, n),
        first: first.subarray(0, n),
        last: last.subarray(0, n),
        count: count.subarray(0, n),
        front: front.subarray(0, 2 * FRONT * n),
        prev: prev.subarray(0, n),
        head,
        listFront: this.listFront,
        sealed: this.sealed,
      },
    };
  }

  /** Blocks from {@link snapshot}'s data. */
  static restore(s: IndexSnapshot): PostingBlocks {
    const b = new PostingBlocks();
    const m = s.meta as { blocks: number; freeBlocks: number[]; end: number; garbage: number; postings: number };
    const a = s.arrays;
    b.bytes = atLeast(a['bytes'] as Uint8Array, 1024, u8);
    b.off = atLeast(a['off'] as Uint32Array, 256, u32);
    b.first = atLeast(a['first'] as Uint32Array, 256, u32);
    b.last = atLeast(a['last'] as Uint32Array, 256, u32);
    b.count = atLeast(a['count'] as Uint8Array, 256, u8);
    b.front = atLeast(a['front'] as Uint32Array, 2 * FRONT * 256, u32);
    b.prev = atLeast(a['prev'] as Int32Array, 256, i32);
    b.head = atLeast(a['head'] as Int32Array, 64, i32);
    b.listFront = atLeast(a['listFront'] as Uint32Array, 2 * FRONT * 64, u32);
    b.sealed = atLeast(a['sealed'] as Uint32Array, 64, u32);
    b.#growRuns(b.head.length);
    b.#blocks = m.blocks;
    b.#freeBlocks.push(...m.freeBlocks);
    b.#end = m.end;
    b.#garbage = m.garbage;
    b.#postings = m.postings;
    return b;
  }

  /** Postings the blocks hold. */
  get postings(): number {
    return this.#postings;
  }

  /** Makes room for list ids below `n`. */
  ensureLists(n: number): void {
    if (n <= this.head.length) return;
    const size = Math.max(n, 2 * this.head.length);
    this.head = atLeast(this.head, size, i32);
    this.listFront = atLeast(this.listFront, 2 * FRONT * size, u32);
    this.sealed = atLeast(this.sealed, size, u32);
    this.#growRuns(size);
  }

  #growRuns(size: number): void {
    this.#extentAt = atLeast(this.#extentAt, size, u32);
    this.#extentEnd = atLeast(this.#extentEnd, size, u32);
    this.#extentSize = atLeast(this.#extentSize, size, u32);
    this.#runAt = atLeast(this.#runAt, size, (k) => new Int32Array(k));
    this.#runEnd = atLeast(this.#runEnd, size, (k) => new Int32Array(k));
  }

  /** Counts a posting of frequency `f` in a fact of length `length` into the list's bound. */
  note(list: number, f: number, length: number): void {
    addToFrontier(f, length, this.listFront, 2 * FRONT * list);
  }

  /**
   * Seals `n` pairs (ordinal, frequency) of `pairs` from pair `from`, in
   * ascending ordinal order and above every ordinal the list's blocks
   * hold, as the list's newest block.
   */
  seal(list: number, pairs: Uint32Array, from: number, n: number, lengths: Uint32Array): void {
    const block = this.#newBlock(list);
    // Encoded first (at most 10 bytes a posting: two 5-byte varints), so
    // that it is placed in exactly the bytes it takes.
    const encoded = this.#encoded;
    let size = 0;
    let prevOrd = pairs[2 * from]!;
    const fs = this.#fs;
    const lens = this.#lens;
    for (let i = 0; i < n; i++) {
      const ord = pairs[2 * (from + i)]!;
      const f = pairs[2 * (from + i) + 1]!;
      let gap = ord - prevOrd;
      prevOrd = ord;
      while (gap >= 0x80) {
        encoded[size++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      encoded[size++] = gap;
      let v = f;
      while (v >= 0x80) {
        encoded[size++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      encoded[size++] = v;
      fs[i] = f;
      lens[i] = lengths[ord]!;
    }
    const at = this.#place(list, size);
    this.bytes.set(encoded.subarray(0, size), at);
    this.off[block] = at;
    this.first[block] = pairs[2 * from]!;
    this.last[block] = prevOrd;
    this.count[block] = n;
    setFrontier(fs, lens, n, this.front, 2 * FRONT * block);
    // A block number freed and taken again: its old bound is not this one.
    if (2 * block < this.#best.length) this.#best[2 * block] = Number.NaN;
    this.prev[block] = this.head[list]!;
    this.head[list] = block;
    this.sealed[list]! += n;
    this.#postings += n;
  }

  /**
   * Where a block of the list taking `size` bytes is written (and the
   * bytes taken): a list's first block at the end of the bytes (most
   * lists have one, and no room is kept for them); a later one in the
   * list's run of bytes, a new run at the end when it has no room left
   * (what the last left unused counts as garbage).
   */
  #place(list: number, size: number): number {
    if (this.sealed[list] === 0) {
      this.#reserve(size);
      const at = this.#end;
      this.#end += size;
      return at;
    }
    if (this.#extentEnd[list]! - this.#extentAt[list]! < size) {
      this.#garbage += this.#extentEnd[list]! - this.#extentAt[list]!;
      const room = Math.min(EXTENT_MAX, Math.max(size, 2 * this.#extentSize[list]!));
      // May pack the bytes, which ends every list's run.
      this.#reserve(room);
      this.#extentAt[list] = this.#end;
      this.#extentEnd[list] = this.#end + room;
      this.#extentSize[list] = room;
      this.#end += room;
    }
    const at = this.#extentAt[list]!;
    this.#extentAt[list] = at + size;
    return at;
  }

  /**
   * Decodes a block into `docs` and `freqs` (ascending ordinals); returns
   * how many postings it holds.
   */
  decode(block: number, docs: Uint32Array, freqs: Uint32Array): number {
    const bytes = this.bytes;
    const n = this.count[block]!;
    let at = this.off[block]!;
    let ord = this.first[block]!;
    for (let i = 0; i < n; i++) {
      let b = bytes[at++]!;
      let gap = b & 0x7f;
      for (let shift = 7; b >= 0x80; shift += 7) {
        b = bytes[at++]!;
        gap += (b & 0x7f) * 2 ** shift;
      }
      b = bytes[at++]!;
      let f = b & 0x7f;
      for (let shift = 7; b >= 0x80; shift += 7) {
        b = bytes[at++]!;
        f += (b & 0x7f) * 2 ** shift;
      }
      ord += gap;
      docs[i] = ord;
      freqs[i] = f;
    }
    return n;
  }

  /**
   * The most `weight × saturation` a posting of block `b` scores at the
   * average length `avg`: its frontier's bound (frontierBound), the very
   * double. The frontier's best saturation is kept per block for the
   * average last asked, so the windows of one search, and the searches
   * between two writes (the average changes with the facts), work it out
   * once a block.
   *
   * Why: at a million facts a common word's window overlaps some 13
   * blocks, and working out each one's bound (four pairs' saturations,
   * its frontier read from memory it had left) was some 40% of the search
   * loop's own time in its slowest searches. Exact: for a weight above 0,
   * `weight × s` rises with `s` (IEEE rounding is monotonic), so the best
   * product is the product of the best saturation.
   */
  bound(b: number, weight: number, avg: number): number {
    if (!(weight > 0)) return frontierBound(this.front, 2 * FRONT * b, weight, avg);
    if (2 * b + 1 >= this.#best.length) this.#best = atLeast(this.#best, 2 * Math.max(this.off.length, b + 1), (n) => new Float64Array(n).fill(Number.NaN));
    const best = this.#best;
    if (best[2 * b] !== avg) {
      best[2 * b] = avg;
      // The best saturation: the frontier's bound at a weight of 1 (1 × s is s).
      best[2 * b + 1] = frontierBound(this.front, 2 * FRONT * b, 1, avg);
    }
    return weight * best[2 * b + 1]!;
  }

  /** Drops every block of the list, and its bound. */
  drop(list: number): void {
    for (let b = this.head[list]!; b >= 0; ) {
      const prev = this.prev[b]!;
      this.#freeBlock(b);
      b = prev;
    }
    this.head[list] = -1;
    this.#postings -= this.sealed[list]!;
    this.sealed[list] = 0;
    // Its runs end: the bytes left in them are garbage, the numbers unused.
    this.#garbage += this.#extentEnd[list]! - this.#extentAt[list]!;
    this.#extentAt[list] = 0;
    this.#extentEnd[list] = 0;
    this.#extentSize[list] = 0;
    this.#runAt[list] = 0;
    this.#runEnd[list] = 0;
    this.listFront.fill(0, 2 * FRONT * list, 2 * FRONT * (list + 1));
  }

  /** A number for a new block of the list: a freed one, else the next of the list's run of numbers (a new run past the last block when it has none left). */
  #newBlock(list: number): number {
    const free = this.#freeBlocks.pop();
    if (free !== undefined) return free;
    if (this.#runAt[list]! < this.#runEnd[list]!) return this.#runAt[list]!++;
    const size = Math.min(RUN_MAX, Math.max(1, Math.ceil(this.sealed[list]! / BLOCK)));
    const block = this.#blocks;
    this.#blocks += size;
    this.#runAt[list] = block + 1;
    this.#runEnd[list] = block + size;
    if (this.#blocks > this.off.length) {
      const n = Math.max(this.#blocks, 2 * this.off.length);
      this.off = atLeast(this.off, n, u32);
      this.first = atLeast(this.first, n, u32);
      this.last = atLeast(this.last, n, u32);
      this.count = atLeast(this.count, n, u8);
      this.front = atLeast(this.front, 2 * FRONT * n, u32);
      this.prev = atLeast(this.prev, n, i32);
    }
    return block;
  }

  #freeBlock(block: number): void {
    // A block's bytes run to the next block's start; sizes are not kept,
    // so garbage is counted by postings (about 2 bytes each).
    this.#garbage += 2 * this.count[block]!;
    this.count[block] = 0;
    this.#freeBlocks.push(block);
  }

  /** Room for `more` bytes at the end, packing away garbage first when it outweighs the blocks. */
  #reserve(more: number): void {
    if (this.#end + more <= this.bytes.length) return;
    if (this.#garbage > 64 * 1024 && 2 * this.#garbage > this.#end) this.#pack();
    if (this.#end + more <= this.bytes.length) return;
    const bytes = new Uint8Array(Math.max(this.#end + more, Math.ceil(this.bytes.length * 1.5)));
    bytes.set(this.bytes.subarray(0, this.#end));
    this.bytes = bytes;
  }

  /** Rewrites the live blocks' bytes contiguously, in block-number order. */
  #pack(): void {
    const live: number[] = [];
    const free = new Set(this.#freeBlocks);
    for (let b = 0; b < this.#blocks; b++) if (!free.has(b)) live.push(b);
    live.sort((a, b) => this.off[a]! - this.off[b]!);
    const bytes = new Uint8Array(this.bytes.length);
    let at = 0;
    for (const b of live) {
      const size = this.#encodedSize(b);
      bytes.set(this.bytes.subarray(this.off[b]!, this.off[b]! + size), at);
      this.off[b] = at;
      at += size;
    }
    this.bytes = bytes;
    this.#end = at;
    this.#garbage = 0;
    // Every list's run of bytes ends here: its next block starts a new one.
    this.#extentAt.fill(0);
    this.#extentEnd.fill(0);
  }

  /** The bytes block `b` takes: 2 varints a posting. */
  #encodedSize(b: number): number {
    const bytes = this.bytes;
    let at = this.off[b]!;
    for (let i = 2 * this.count[b]!; i > 0; i--) while (bytes[at++]! >= 0x80);
    return at - this.off[b]!;
  }
}
