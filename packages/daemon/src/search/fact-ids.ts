import { atLeast } from './typed-arrays.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < CROCKFORD.length; i++) DIGIT[CROCKFORD.charCodeAt(i)] = i;

/**
 * Reads a ULID as three numbers that order as its text does (its 26
 * characters at 5 bits each: 10, 8 and 8 of them, each part exact in a
 * double) into `into[at..at+3]`, so ids are compared, hashed and kept
 * without strings.
 */
function ulidParts(id: string, into: Float64Array, at: number): void {
  if (id.length !== 26) throw new Error(`not a ULID: ${JSON.stringify(id)}`);
  let part = 0;
  let value = 0;
  for (let i = 0; i < 26; i++) {
    const code = id.charCodeAt(i);
    const digit = code < 128 ? DIGIT[code]! : -1;
    if (digit < 0) throw new Error(`not a ULID: ${JSON.stringify(id)}`);
    value = value * 32 + digit;
    if (i === 9 || i === 17 || i === 25) {
      into[at + part++] = value;
      value = 0;
    }
  }
}

/** ulidText's character codes, reused: a search turns ten ids or more to text. */
const ULID_CODES: number[] = new Array<number>(26).fill(0);

/** Writes `digits` base-32 digits of `value` into ULID_CODES, ending just before `end`. */
function ulidDigits(value: number, digits: number, end: number): void {
  for (let i = end - 1; i >= end - digits; i--) {
    ULID_CODES[i] = CROCKFORD.charCodeAt(value % 32);
    value = Math.floor(value / 32);
  }
}

/** The ULID text of the id at `parts[at..at+3]` (ulidParts' inverse). */
function ulidText(parts: Float64Array, at: number): string {
  ulidDigits(parts[at]!, 10, 10);
  ulidDigits(parts[at + 1]!, 8, 18);
  ulidDigits(parts[at + 2]!, 8, 26);
  return String.fromCharCode.apply(null, ULID_CODES);
}

/** A hash of the id at `parts[at..at+3]` (its random tail mostly). */
function idHash(parts: Float64Array, at: number): number {
  let h = Math.imul(parts[at + 2]! % 1073741824, 0x9e3779b1) ^ Math.imul(parts[at + 1]! % 1073741824, 0x85ebca6b) ^ (parts[at]! % 1073741824);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) ^ (h >>> 13);
}

/**
 * The ids of an index's facts by ordinal: each ULID as three numbers
 * (`parts`), and a hash table from id to ordinal (`slots`, open
 * addressing, -1 empty, at most half full). A removed fact's ordinal stays
 * in the table until the index renumbers its facts; lookups skip it.
 */
export class FactIds {
  parts: Float64Array;
  slots: Int32Array;
  /** An id being looked up, as parts. */
  readonly #wanted = new Float64Array(3);

  constructor(parts: Float64Array = new Float64Array(3 * 64), slots: Int32Array = new Int32Array(128).fill(-1)) {
    this.parts = parts;
    this.slots = slots;
  }

  /** Makes room for `n` ordinals. */
  ensure(n: number): void {
    this.parts = atLeast(this.parts, 3 * n, (k) => new Float64Array(k));
  }

  /** Gives ordinal `ord` (one of `count`, room made) the id `id` and files it in the table. */
  set(ord: number, id: string, count: number): void {
    ulidParts(id, this.parts, 3 * ord);
    if (2 * count > this.slots.length) {
      this.slots = new Int32Array(2 * this.slots.length).fill(-1);
      for (let o = 0; o < count; o++) if (o !== ord) this.#place(o);
    }
    this.#place(ord);
  }

  #place(ord: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = idHash(this.parts, 3 * ord) & mask;
    while (slots[i]! >= 0) i = (i + 1) & mask;
    slots[i] = ord;
  }

  /** The ordinal of `id` that `alive` marks live, or -1. */
  find(id: string, alive: Uint8Array): number {
    const wanted = this.#wanted;
    ulidParts(id, wanted, 0);
    const slots = this.slots;
    const mask = slots.length - 1;
    const parts = this.parts;
    for (let i = idHash(wanted, 0) & mask; ; i = (i + 1) & mask) {
      const ord = slots[i]!;
      if (ord < 0) return -1;
      const at = 3 * ord;
      if (parts[at + 2] === wanted[2] && parts[at + 1] === wanted[1] && parts[at] === wanted[0] && alive[ord] !== 0) return ord;
    }
  }

  /** The id of an ordinal, as text. */
  text(ord: number): string {
    return ulidText(this.parts, 3 * ord);
  }

  /** Whether the id of ordinal `a` is below (older than) that of `b`. */
  older(a: number, b: number): boolean {
    const id = this.parts;
    const x = 3 * a;
    const y = 3 * b;
    if (id[x] !== id[y]) return id[x]! < id[y]!;
    if (id[x + 1] !== id[y + 1]) return id[x + 1]! < id[y + 1]!;
    return id[x + 2]! < id[y + 2]!;
  }

  /**
   * The ids of the ordinals `live` (in their order) as ordinals 0..n-1 of
   * a new table, with room for `room` ordinals.
   */
  renumbered(live: readonly number[], room: number): FactIds {
    const parts = new Float64Array(3 * room);
    live.forEach((ord, to) => parts.set(this.parts.subarray(3 * ord, 3 * ord + 3), 3 * to));
    const ids = new FactIds(parts, new Int32Array(Math.max(128, 2 ** Math.ceil(Math.log2(4 * live.length + 1)))).fill(-1));
    for (let ord = 0; ord < live.length; ord++) ids.#place(ord);
    return ids;
  }
}
