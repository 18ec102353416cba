import type { AnalysedQuery } from './analyze.js';
import { PREFIX_WEIGHT, saturation } from './bm25.js';
import type { DocTerms } from './doc-terms.js';
import { type FactView, type Slot, maxScore } from './max-score.js';
import { BLOCK, PostingBlocks } from './posting-blocks.js';
import { FRONT, frontierBound } from './score-frontier.js';
import { WindowReader } from './window-reader.js';
import type { IndexSnapshot } from './index-image.js';
import { PostingPool } from './posting-pool.js';
import { atLeast } from './typed-arrays.js';
import { type Completion, MAX_PREFIX_SCAN, type QueryPlan, planPrefix, planTerms } from './query-plan.js';

/** A fact a search found, with its score. */
export interface Hit {
  id: string;
  score: number;
}

/** A dictionary word: its term and how many current facts hold it. */
interface Surface {
  term: string;
  count: number;
}

/** New words are kept unsorted until this many, then merged into the sorted ones. */
const RECENT_MAX = 1024;

/**
 * UTF-8 byte order, which is code point order (LevelDB's order for the
 * dictionary keys), on JS strings: UTF-16 code units order the same except
 * that surrogates (code points above U+FFFF) must come after U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * What one distinct word costs in memory beyond the arrays: its strings in
 * two maps and the sorted list, its entry objects (some 250 bytes, measured
 * on the sentence corpus: 101 agents, some 900 MB, ADR 0019).
 */
const WORD_BYTES = 250;

/**
 * A term's postings with at least this frequency are also kept in a list
 * of their own, its strong list (under {@link strongKey}). A search that
 * needs only the postings a frequency of 1 cannot give (max-score.ts: the
 * weak parts all fall below what can still enter) reads that list alone:
 * for a word in most facts, a fraction of its postings.
 */
export const STRONG_F = 2;

/** No weak posting yet: {@link ResidentIndex}'s weakest length per list. */
const NO_WEAK = 0xffffffff;

/** The pool's key of a term's strong list (no analysed term holds a NUL). */
function strongKey(term: string): string {
  return `\u0000${term}`;
}

/** For bench:search's A/B runs only (issue 29): MEMORYD_BENCH_EXHAUSTIVE=1 scores every posting instead of MaxScore. */
const EXHAUSTIVE = process.env['MEMORYD_BENCH_EXHAUSTIVE'] === '1';

/** Prefixes whose completions are kept until the dictionary changes. */
const MAX_CACHED_COMPLETIONS = 1024;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < CROCKFORD.length; i++) DIGIT[CROCKFORD.charCodeAt(i)] = i;

/**
 * Reads a ULID as three numbers that order as its text does (its 26 characters at 5 bits each: 10, 8 and 8 of them,
 * each part exact in a double) into `into[at..at+3]`, so ids are compared,
 * hashed and kept without strings.
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
 * A copy of `s` that keeps nothing else alive: V8 makes a string cut from
 * a longer one (13 characters or more) a view of it, which would hold the
 * whole text it was cut from in memory for as long as the index keeps it.
 */
function own(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** `array` if it has room for `need`, else a copy with at least twice its room. */
function grown<T extends Uint32Array | Uint8Array | Float64Array>(array: T, need: number, make: (n: number) => T): T {
  return need <= array.length ? array : atLeast(array, Math.max(need, array.length * 2), make);
}

/**
 * One agent's inverted index in memory, the one way its searches are
 * answered: kept equal to its current facts by every commit
 * (store/level/search-indexes.ts), saved as an image and restored from one
 * ({@link snapshot}, {@link restore}).
 *
 * Facts get ordinals in the order they arrive; a removed fact keeps its
 * ordinal (marked dead, its postings skipped) until enough are dead that
 * the whole index is renumbered. Postings are in ordinal order: the newest
 * of each term in the pool, the older in compressed blocks with score
 * bounds (search/posting-blocks.ts). {@link search} ranks by MaxScore
 * over windows (search/max-score.ts) and {@link searchExhaustive} by
 * scoring every posting; both sum in the query's term order, exactly as
 * {@link scoreDoc} does, so their scores are bit for bit brute force's.
 */
export class ResidentIndex {
  /** Ordinals handed out (live and dead). */
  #count = 0;
  #lengths: Uint32Array = new Uint32Array(64);
  #alive: Uint8Array = new Uint8Array(64);
  /** Each fact's id as three numbers (ulidParts), for tie-breaking and hashing. */
  #idParts: Float64Array = new Float64Array(3 * 64);
  /** Whether ordinals follow id order (a higher ordinal is a newer fact): ties then compare ordinals. */
  #ordered = true;
  /** Ordinals by id hash, open addressing (-1: empty); dead ordinals stay until renumbering. */
  #slots: Int32Array = new Int32Array(128).fill(-1);
  /** An id being looked up, as parts. */
  readonly #wanted = new Float64Array(3);
  /**
   * Each term's list: its newest postings (fewer than {@link BLOCK}) as
   * pairs of (fact ordinal, weighted frequency) here, with its df...
   */
  #lists = new PostingPool();
  /** ...and the older ones sealed in compressed blocks, all in ordinal order. */
  #blocks = new PostingBlocks();
  /**
   * Per list: the least length of a fact it ever held with a frequency
   * below {@link STRONG_F} ({@link NO_WEAK}: none), which bounds what the
   * postings left out of the term's strong list score.
   */
  #weakLen: Uint32Array = new Uint32Array(64).fill(NO_WEAK);
  readonly #surfaces = new Map<string, Surface>();
  /** What {@link complete} answered, by prefix, since the dictionary last changed. */
  readonly #completions = new Map<string, readonly Completion[]>();
  /** Dictionary words in code point order (some may be gone: check #surfaces). */
  #sorted: string[] = [];
  /** Words added since #sorted was last built, unsorted. */
  #recent: string[] = [];
  #staleSorted = 0;
  #facts = 0;
  #length = 0;
  #dead = 0;
  // Scratch of a search, by ordinal (searches are synchronous, so one set serves all).
  #score = new Float64Array(64);
  #stamp = new Uint32Array(64);
  #ownStamp = new Uint32Array(64);
  #bestStamp = new Uint32Array(64);
  #best = new Uint32Array(64);
  /** Candidates of a search, then the holders of a completion (JS arrays grow far slower). */
  #touched = new Uint32Array(64);
  #touchedCount = 0;
  #holders = new Uint32Array(64);
  #epoch = 0;
  /** Loading: new words wait unsorted until the end. */
  #loading = false;
  /** Loading: the postings, as (list, fact ordinal, frequency) triples, until the end fills the lists at once. */
  #staged: Uint32Array | undefined;
  #stagedCount = 0;

  /**
   * The index as data (search/index-image.ts): what a worker hands back
   * and an image file holds. Its arrays are views of the index's (cut to
   * what they hold, not copied): use it before the next change.
   */
  snapshot(): IndexSnapshot {
    if (this.#staged !== undefined) throw new Error('ResidentIndex.snapshot during a load');
    this.#mergeSurfaces();
    // Without the room relocated tails left behind.
    this.#lists.pack();
    const pool = this.#lists.snapshot();
    const blocks = this.#blocks.snapshot();
    const n = this.#count;
    const arrays: IndexSnapshot['arrays'] = {
      lengths: this.#lengths.subarray(0, n),
      alive: this.#alive.subarray(0, n),
      idParts: this.#idParts.subarray(0, 3 * n),
      slots: this.#slots,
      weakLen: this.#weakLen,
    };
    for (const [name, a] of Object.entries(pool.arrays)) arrays[`pool.${name}`] = a;
    for (const [name, a] of Object.entries(blocks.arrays)) arrays[`blocks.${name}`] = a;
    // The dictionary in code point order: word, its term when it differs, and its count.
    const words = this.#sorted.map((w) => {
      const { term, count } = this.#surfaces.get(w)!;
      return term === w ? [w, count] : [w, count, term];
    });
    return {
      meta: { count: n, ordered: this.#ordered, facts: this.#facts, length: this.#length, dead: this.#dead, words, pool: pool.meta, blocks: blocks.meta },
      arrays,
    };
  }

  /** An index from {@link snapshot}'s data (its arrays are used as they are). */
  static restore(s: IndexSnapshot): ResidentIndex {
    const index = new ResidentIndex();
    const m = s.meta as { count: number; ordered: boolean; facts: number; length: number; dead: number; words: Array<[string, number, string?]>; pool: IndexSnapshot['meta']; blocks: IndexSnapshot['meta'] };
    const part = (prefix: string, meta: IndexSnapshot['meta']): IndexSnapshot => {
      const arrays: IndexSnapshot['arrays'] = {};
      for (const [name, a] of Object.entries(s.arrays)) if (name.startsWith(prefix)) arrays[name.slice(prefix.length)] = a;
      return { meta, arrays };
    };
    index.#lists = PostingPool.restore(part('pool.', m.pool));
    index.#blocks = PostingBlocks.restore(part('blocks.', m.blocks));
    const n = m.count;
    const room = Math.max(64, n);
    index.#lengths = atLeast(s.arrays['lengths'] as Uint32Array, room, (k) => new Uint32Array(k));
    index.#alive = atLeast(s.arrays['alive'] as Uint8Array, room, (k) => new Uint8Array(k));
    index.#idParts = atLeast(s.arrays['idParts'] as Float64Array, 3 * room, (k) => new Float64Array(k));
    index.#slots = s.arrays['slots'] as Int32Array;
    index.#weakLen = s.arrays['weakLen'] as Uint32Array;
    index.#count = n;
    index.#ordered = m.ordered;
    index.#facts = m.facts;
    index.#length = m.length;
    index.#dead = m.dead;
    for (const [word, count, term] of m.words) {
      index.#surfaces.set(word, { term: term ?? word, count });
      index.#sorted.push(word);
    }
    return index;
  }

  /** Current facts. */
  get facts(): number {
    return this.#facts;
  }

  /** Their summed length. */
  get length(): number {
    return this.#length;
  }

  /** Postings held, live or not. */
  get postings(): number {
    return this.#lists.used + this.#blocks.postings;
  }

  /** What the postings take, in bytes: the sealed blocks, and 8 a posting not yet sealed. */
  get postingBytes(): number {
    return this.#blocks.byteSize + 8 * this.#lists.used;
  }

  /**
   * About what the index takes in memory, in bytes: its typed arrays (room
   * included), and {@link WORD_BYTES} for each distinct word (its strings,
   * map entries and objects dominate an agent with a large vocabulary).
   */
  get memoryBytes(): number {
    const facts = this.#lengths.byteLength + this.#alive.byteLength + this.#idParts.byteLength + this.#slots.byteLength + this.#weakLen.byteLength;
    return facts + this.#lists.byteSize + this.#blocks.memoryBytes + WORD_BYTES * this.#surfaces.size;
  }

  /** The number of current facts holding `term`. */
  df(term: string): number {
    const id = this.#lists.list(term);
    return id < 0 ? 0 : this.#lists.df[id]!;
  }

  /** Whether `id` is a current fact here. */
  has(id: string): boolean {
    return this.#find(id) >= 0;
  }

  /** The live ordinal of `id`, or -1. */
  #find(id: string): number {
    const wanted = this.#wanted;
    ulidParts(id, wanted, 0);
    const slots = this.#slots;
    const mask = slots.length - 1;
    const parts = this.#idParts;
    for (let i = idHash(wanted, 0) & mask; ; i = (i + 1) & mask) {
      const ord = slots[i]!;
      if (ord < 0) return -1;
      const at = 3 * ord;
      if (parts[at + 2] === wanted[2] && parts[at + 1] === wanted[1] && parts[at] === wanted[0] && this.#alive[ord] !== 0) return ord;
    }
  }

  /** Files an ordinal (its id parts set) in the hash table, growing it to stay at most half full. */
  #file(ord: number): void {
    if (2 * this.#count > this.#slots.length) {
      const slots = new Int32Array(2 * this.#slots.length).fill(-1);
      this.#slots = slots;
      for (let o = 0; o < this.#count; o++) if (o !== ord) this.#place(o);
    }
    this.#place(ord);
  }

  #place(ord: number): void {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let i = idHash(this.#idParts, 3 * ord) & mask;
    while (slots[i]! >= 0) i = (i + 1) & mask;
    slots[i] = ord;
  }

  /**
   * The ids of up to `count` current facts spread evenly over the
   * ordinals (the first current one at or after each of `count` evenly
   * spaced ordinals), oldest first, without repeats.
   */
  spreadIds(count: number): string[] {
    const ids: string[] = [];
    let last = -1;
    for (let i = 0; i < count; i++) {
      let ord = Math.max(last + 1, Math.floor((i * this.#count) / count));
      while (ord < this.#count && this.#alive[ord] === 0) ord++;
      if (ord >= this.#count) break;
      ids.push(this.#id(ord));
      last = ord;
    }
    return ids;
  }

  /** The id of an ordinal, as text. */
  #id(ord: number): string {
    return ulidText(this.#idParts, 3 * ord);
  }

  // --- Loading ------------------------------------------------------------

  /**
   * Starts a load of about `postings` postings: the adds until
   * {@link endLoad} defer sorting the word list.
   */
  beginLoad(postings = 0): void {
    this.#loading = true;
    this.#staged = new Uint32Array(3 * Math.max(1024, postings));
    this.#stagedCount = 0;
  }

  /** Ends a load: sorts the word list once and packs the postings tight. */
  endLoad(): void {
    this.#loading = false;
    if (this.#staged !== undefined) {
      this.#lists.fill(this.#staged, this.#stagedCount);
      this.#staged = undefined;
      for (const list of this.#lists.ids()) this.#sealFull(list);
    }
    if (this.#sorted.length === 0 && this.#staleSorted === 0) {
      // Only adds so far: every recent word is live and new.
      this.#sorted = this.#recent.sort(compareCodePoints);
      this.#recent = [];
    } else {
      this.#mergeSurfaces();
    }
    if (this.#dead > 0) this.#renumber();
  }

  #newOrdinal(id: string, length: number): number {
    const ord = this.#count;
    const need = ord + 1;
    if (need > this.#alive.length) {
      this.#lengths = grown(this.#lengths, need, (n) => new Uint32Array(n));
      this.#alive = grown(this.#alive, need, (n) => new Uint8Array(n));
      this.#idParts = grown(this.#idParts, 3 * this.#alive.length, (n) => new Float64Array(n));
    }
    const parts = this.#idParts;
    ulidParts(id, parts, 3 * ord);
    this.#count++;
    this.#file(ord);
    if (ord > 0 && this.#ordered) {
      const x = 3 * (ord - 1);
      const y = 3 * ord;
      const newer = parts[x] !== parts[y] ? parts[x]! < parts[y]! : parts[x + 1] !== parts[y + 1] ? parts[x + 1]! < parts[y + 1]! : parts[x + 2]! < parts[y + 2]!;
      if (!newer) this.#ordered = false;
    }
    this.#lengths[ord] = length;
    this.#alive[ord] = 1;
    this.#facts++;
    this.#length += length;
    return ord;
  }

  // --- Changes -----------------------------------------------------------

  /** Indexes a fact that became current; false if it already is (nothing changes). */
  add(id: string, doc: DocTerms): boolean {
    if (this.#find(id) >= 0) return false;
    this.#completions.clear();
    const ord = this.#newOrdinal(id, doc.length);
    for (const [term, frequency] of doc.terms) {
      const list = this.#post(term, ord, frequency, doc.length);
      if (frequency >= STRONG_F) this.#post(strongKey(term), ord, frequency, doc.length);
      else if (doc.length < this.#weakLen[list]!) this.#weakLen[list] = doc.length;
    }
    for (const [surface, { term }] of doc.surfaces) {
      const s = this.#surfaces.get(surface);
      if (s !== undefined) {
        s.count++;
        continue;
      }
      // Kept copies: the analysis cuts words from the fact's text.
      const word = own(surface);
      this.#surfaces.set(word, { term: term === surface ? word : own(term), count: 1 });
      this.#recent.push(word);
    }
    if (this.#recent.length > RECENT_MAX && !this.#loading) this.#mergeSurfaces();
    return true;
  }

  /** Adds a posting to `key`'s list (created if need be); returns the list. */
  #post(key: string, ord: number, frequency: number, length: number): number {
    let list = this.#lists.list(key);
    if (list < 0) {
      list = this.#lists.listFor(own(key));
      this.#blocks.ensureLists(list + 1);
      if (list >= this.#weakLen.length) this.#weakLen = atLeast(this.#weakLen, 2 * (list + 1), (n) => new Uint32Array(n).fill(NO_WEAK));
      this.#weakLen[list] = NO_WEAK;
    }
    this.#blocks.note(list, frequency, length);
    if (this.#staged !== undefined) this.#stage(list, ord, frequency);
    else this.#append(list, ord, frequency);
    this.#lists.df[list]!++;
    return list;
  }

  #stage(list: number, ord: number, frequency: number): void {
    let staged = this.#staged!;
    const at = 3 * this.#stagedCount++;
    if (at + 3 > staged.length) {
      const more = new Uint32Array(Math.ceil(staged.length * 1.5) + 3);
      more.set(staged);
      this.#staged = staged = more;
    }
    staged[at] = list;
    staged[at + 1] = ord;
    staged[at + 2] = frequency;
  }

  /** Removes a fact that stopped being current; false if it is not here (nothing changes). */
  remove(id: string, doc: DocTerms): boolean {
    // A freed list's number could be reused while triples still name it.
    if (this.#staged !== undefined) throw new Error('ResidentIndex.remove during a load: replay removals after endLoad');
    const ord = this.#find(id);
    if (ord < 0) return false;
    this.#completions.clear();
    this.#alive[ord] = 0;
    this.#facts--;
    this.#length -= this.#lengths[ord]!;
    this.#dead++;
    for (const [term, frequency] of doc.terms) {
      this.#unpost(term);
      if (frequency >= STRONG_F) this.#unpost(strongKey(term));
    }
    for (const surface of doc.surfaces.keys()) {
      const s = this.#surfaces.get(surface);
      if (s === undefined) continue;
      if (--s.count === 0) {
        this.#surfaces.delete(surface);
        this.#staleSorted++;
      }
    }
    if (this.#staleSorted > RECENT_MAX && this.#staleSorted * 2 > this.#sorted.length) this.#mergeSurfaces();
    if (this.#dead > 1024 && this.#dead > this.#facts) this.#renumber();
    return true;
  }

  /** Counts a removed fact's posting out of `key`'s list: dropped when none is left, rewritten when mostly dead. */
  #unpost(key: string): void {
    const lists = this.#lists;
    const list = lists.list(key);
    if (list < 0) return;
    const df = --lists.df[list]!;
    const held = lists.size[list]! + this.#blocks.sealed[list]!;
    if (df === 0) {
      this.#blocks.drop(list);
      lists.delete(key);
    } else if (held >= 2 * BLOCK && held > 2 * df) this.#rebuildList(list, this.#alive);
  }

  /** Appends a posting to a list's tail, sealing the tail into a block once it holds a whole one. */
  #append(list: number, ord: number, frequency: number, lengths = this.#lengths): void {
    const lists = this.#lists;
    lists.append(list, ord, frequency);
    if (lists.size[list] === BLOCK) {
      this.#blocks.seal(list, lists.pairs, lists.start[list]!, BLOCK, lengths);
      lists.clear(list);
    }
  }

  /** Seals a list filled in one go (a load) into blocks, keeping what is left over as its tail. */
  #sealFull(list: number): void {
    const lists = this.#lists;
    const size = lists.size[list]!;
    if (size < BLOCK) return;
    const whole = size - (size % BLOCK);
    for (let at = 0; at < whole; at += BLOCK) this.#blocks.seal(list, lists.pairs, lists.start[list]! + at, BLOCK, this.#lengths);
    // The rest moves to the front of the list's room: appends after a clear write there, reading ahead of it.
    const base = 2 * lists.start[list]!;
    lists.clear(list);
    for (let i = whole; i < size; i++) lists.append(list, lists.pairs[base + 2 * i]!, lists.pairs[base + 2 * i + 1]!);
  }

  /** Every pair a list holds (blocks, then tail), oldest first, removed facts' too. */
  #pairsOf(list: number): Uint32Array {
    const blocks = this.#blocks;
    const chain: number[] = [];
    for (let b = blocks.head[list]!; b >= 0; b = blocks.prev[b]!) chain.push(b);
    const tail = this.#lists.size[list]!;
    const out = new Uint32Array(2 * (blocks.sealed[list]! + tail));
    const docs = new Uint32Array(BLOCK);
    const freqs = new Uint32Array(BLOCK);
    let at = 0;
    for (let i = chain.length - 1; i >= 0; i--) {
      const n = blocks.decode(chain[i]!, docs, freqs);
      for (let j = 0; j < n; j++) {
        out[at++] = docs[j]!;
        out[at++] = freqs[j]!;
      }
    }
    const base = 2 * this.#lists.start[list]!;
    out.set(this.#lists.pairs.subarray(base, base + 2 * tail), at);
    return out;
  }

  /**
   * Rewrites a list with only the pairs of facts `keep` approves,
   * renumbered by `renumber` when given (then in the new ordinals' order),
   * its bounds recounted from what it keeps.
   */
  #rebuildList(list: number, keep: Uint8Array, renumber?: Uint32Array, lengths = this.#lengths): void {
    const all = this.#pairsOf(list);
    const kept: Array<[number, number]> = [];
    for (let i = 0; i < all.length; i += 2) {
      const ord = all[i]!;
      if (keep[ord] !== 0) kept.push([renumber === undefined ? ord : renumber[ord]!, all[i + 1]!]);
    }
    if (renumber !== undefined) kept.sort((a, b) => a[0] - b[0]);
    this.#blocks.drop(list);
    this.#lists.clear(list);
    for (const [ord, f] of kept) {
      this.#blocks.note(list, f, lengths[ord]!);
      this.#append(list, ord, f, lengths);
    }
  }

  /**
   * Gives the live facts ordinals 0..n-1 again in id order (oldest first),
   * dropping every dead pair: a search meets tied facts newest first when
   * it walks the ordinals down, so ties cost no heap work.
   */
  #renumber(): void {
    const parts = this.#idParts;
    const live: number[] = [];
    for (let ord = 0; ord < this.#count; ord++) if (this.#alive[ord] !== 0) live.push(ord);
    live.sort((a, b) => parts[3 * a]! - parts[3 * b]! || parts[3 * a + 1]! - parts[3 * b + 1]! || parts[3 * a + 2]! - parts[3 * b + 2]!);
    const map = new Uint32Array(this.#count);
    const lengths = new Uint32Array(Math.max(64, live.length));
    const idParts = new Float64Array(3 * lengths.length);
    live.forEach((ord, to) => {
      map[ord] = to;
      lengths[to] = this.#lengths[ord]!;
      idParts.set(parts.subarray(3 * ord, 3 * ord + 3), 3 * to);
    });
    for (const list of this.#lists.ids()) this.#rebuildList(list, this.#alive, map, lengths);
    this.#lists.pack();
    this.#count = live.length;
    this.#lengths = lengths;
    this.#idParts = idParts;
    this.#alive = new Uint8Array(lengths.length).fill(1, 0, live.length);
    this.#slots = new Int32Array(Math.max(128, 2 ** Math.ceil(Math.log2(4 * live.length + 1)))).fill(-1);
    for (let ord = 0; ord < live.length; ord++) this.#place(ord);
    this.#dead = 0;
    this.#ordered = true;
  }

  /** Folds the recent words into the sorted ones and drops the gone. */
  #mergeSurfaces(): void {
    const live = (s: string) => this.#surfaces.has(s);
    const recent = [...new Set(this.#recent)].filter(live).sort(compareCodePoints);
    const sorted = this.#sorted;
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    while (i < sorted.length || j < recent.length) {
      const a = sorted[i];
      const b = recent[j];
      const c = a === undefined ? 1 : b === undefined ? -1 : compareCodePoints(a, b);
      const next = c <= 0 ? a! : b!;
      if (c <= 0) i++;
      if (c >= 0) j++;
      if (live(next) && merged[merged.length - 1] !== next) merged.push(next);
    }
    this.#sorted = merged;
    this.#recent = [];
    this.#staleSorted = 0;
  }

  // --- Search ------------------------------------------------------------

  /**
   * The first {@link MAX_PREFIX_SCAN} dictionary words starting with
   * `prefix` in byte order, as a LevelDB range read of the dictionary
   * gives them.
   */
  complete(prefix: string): readonly Completion[] {
    let found = this.#completions.get(prefix);
    if (found === undefined) {
      // Agents search the same words again and again; any change clears them.
      if (this.#completions.size >= MAX_CACHED_COMPLETIONS) this.#completions.clear();
      this.#completions.set(prefix, (found = this.#complete(prefix)));
    }
    return found;
  }

  #complete(prefix: string): Completion[] {
    const sorted = this.#sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(sorted[mid]!, prefix) < 0) lo = mid + 1;
      else hi = mid;
    }
    const words: string[] = [];
    for (let i = lo; i < sorted.length && words.length < MAX_PREFIX_SCAN; i++) {
      const w = sorted[i]!;
      if (!w.startsWith(prefix)) break;
      if (this.#surfaces.has(w)) words.push(w);
    }
    let extra = false;
    for (const w of this.#recent) {
      if (w.startsWith(prefix) && this.#surfaces.has(w)) {
        words.push(w);
        extra = true;
      }
    }
    const chosen = extra ? [...new Set(words)].sort(compareCodePoints).slice(0, MAX_PREFIX_SCAN) : words;
    return chosen.map((w) => {
      const s = this.#surfaces.get(w)!;
      return { term: s.term, count: s.count };
    });
  }

  /**
   * The `k` best current facts for the query, best first, ties newest
   * first: the same facts and scores as planning the query with
   * query-plan.ts and ranking every fact by {@link scoreDoc}, found by
   * MaxScore with block bounds (search/max-score.ts), which skips most
   * postings of common words.
   */
  search(query: AnalysedQuery, k: number): Hit[] {
    if (EXHAUSTIVE) return this.searchExhaustive(query, k);
    const n = this.#facts;
    const plan = planTerms(query, n, this.#length, (t) => this.df(t));
    if (plan === undefined) return [];
    const prefix = query.prefix === undefined ? undefined : planPrefix(plan, query, n, this.complete(query.prefix.surface));
    const slots: Slot[] = [];
    let own = -1;
    for (const { term, idf } of plan.model.terms) {
      if (plan.own?.term === term) own = slots.length;
      const list = this.#lists.list(term);
      const lists: number[] = [];
      lists.push(list);
      const strong = this.#lists.list(strongKey(term));
      // Made when a window first asks: most searches never do.
      let reader: WindowReader | null | undefined;
      const strongReader = () => (reader === undefined ? (reader = strong < 0 ? null : new WindowReader(this.#lists, this.#blocks, this.#lengths, strong, idf, plan.model.avgLength)) : reader);
      // The very expression a weak posting's part is: at least each of them.
      const weakLen = list < 0 ? NO_WEAK : this.#weakLen[list]!;
      const weakBound = weakLen === NO_WEAK ? 0 : idf * saturation(STRONG_F - 1, weakLen, plan.model.avgLength);
      slots.push(this.#slot(lists, idf, plan.model.avgLength, strongReader, weakBound));
    }
    let prefixSlot = -1;
    if (prefix !== undefined) {
      prefixSlot = slots.length;
      // Pushed, as the terms' are: one kind of array for #slot (max-score.ts, at `freqs`).
      const lists: number[] = [];
      for (const t of prefix.terms) lists.push(this.#lists.list(t));
      slots.push(this.#slot(lists, prefix.listWeight, plan.model.avgLength, null, Number.NaN));
    }
    const view: FactView = { lengths: this.#lengths, ordered: this.#ordered, older: (a, b) => this.#older(a, b) };
    return maxScore(slots, own, prefixSlot, k, plan.model.avgLength, view, this.#alive).map((h) => ({ id: this.#id(h.ord), score: h.score }));
  }

  #slot(lists: readonly number[], weight: number, avg: number, strong: Slot['strong'], weakBound: number): Slot {
    const readers: WindowReader[] = [];
    let ub = 0;
    for (const list of lists) {
      if (list < 0) continue;
      readers.push(new WindowReader(this.#lists, this.#blocks, this.#lengths, list, weight, avg));
      ub = Math.max(ub, frontierBound(this.#blocks.listFront, 2 * FRONT * list, weight, avg));
    }
    return { readers, weight, ub, strong, weakBound };
  }

  /** Whether fact `a` has a lower (older) id than fact `b`. */
  #older(a: number, b: number): boolean {
    if (this.#ordered) return a < b;
    const id = this.#idParts;
    const x = 3 * a;
    const y = 3 * b;
    if (id[x] !== id[y]) return id[x]! < id[y]!;
    if (id[x + 1] !== id[y + 1]) return id[x + 1]! < id[y + 1]!;
    return id[x + 2]! < id[y + 2]!;
  }

  /**
   * {@link search} the slow way, as a reference for tests: every posting
   * of every query term scored (term at a time, into per-fact sums in the
   * query's order), the k best kept in a heap.
   */
  searchExhaustive(query: AnalysedQuery, k: number): Hit[] {
    const n = this.#facts;
    const plan = planTerms(query, n, this.#length, (t) => this.df(t));
    if (plan === undefined) return [];
    const prefix = query.prefix === undefined ? undefined : planPrefix(plan, query, n, this.complete(query.prefix.surface));
    this.#prepareScratch();
    const { model } = plan;
    for (const { term, idf } of model.terms) this.#scoreTerm(this.#lists.list(term), idf, model.avgLength, true, plan.own?.term === term);
    if (prefix !== undefined) this.#scorePrefix(plan, prefix.terms, true);
    return this.#topK(k);
  }

  #prepareScratch(): void {
    const need = this.#count;
    if (this.#score.length < need) {
      const size = Math.max(need, this.#score.length * 2);
      this.#score = new Float64Array(size);
      this.#stamp = new Uint32Array(size);
      this.#ownStamp = new Uint32Array(size);
      this.#bestStamp = new Uint32Array(size);
      this.#best = new Uint32Array(size);
      this.#touched = new Uint32Array(size);
      this.#holders = new Uint32Array(size);
      this.#epoch = 0;
    }
    if (this.#epoch === 0xffffffff) {
      this.#stamp.fill(0);
      this.#ownStamp.fill(0);
      this.#bestStamp.fill(0);
      this.#epoch = 0;
    }
    this.#epoch++;
    this.#touchedCount = 0;
  }

  /** Adds a term's part to the candidates holding it (making every holder one when `addCandidates`). */
  #scoreTerm(list: number, idf: number, avg: number, addCandidates: boolean, own: boolean): void {
    if (list < 0) return;
    const pairs = this.#pairsOf(list);
    const epoch = this.#epoch;
    const alive = this.#alive;
    const lengths = this.#lengths;
    const stamp = this.#stamp;
    const ownStamp = this.#ownStamp;
    const score = this.#score;
    const touched = this.#touched;
    let count = this.#touchedCount;
    for (let i = 0; i < pairs.length; i += 2) {
      const ord = pairs[i]!;
      if (alive[ord] === 0) continue;
      if (stamp[ord] !== epoch) {
        if (!addCandidates) continue;
        stamp[ord] = epoch;
        score[ord] = 0;
        touched[count++] = ord;
      }
      score[ord]! += idf * saturation(pairs[i + 1]!, lengths[ord]!, avg);
      if (own) ownStamp[ord] = epoch;
    }
    this.#touchedCount = count;
  }

  /** Adds the prefix part: a fact without the word itself gets its best completion's frequency. */
  #scorePrefix(plan: QueryPlan, terms: readonly string[], addCandidates: boolean): void {
    const epoch = this.#epoch;
    const alive = this.#alive;
    const ownStamp = this.#ownStamp;
    const bestStamp = this.#bestStamp;
    const best = this.#best;
    const stamp = this.#stamp;
    const score = this.#score;
    const touched = this.#touched;
    const holders = this.#holders;
    let count = this.#touchedCount;
    let held = 0;
    for (const term of terms) {
      const list = this.#lists.list(term);
      if (list < 0) continue;
      const pairs = this.#pairsOf(list);
      for (let i = 0; i < pairs.length; i += 2) {
        const ord = pairs[i]!;
        if (alive[ord] === 0 || ownStamp[ord] === epoch) continue;
        const f = pairs[i + 1]!;
        if (bestStamp[ord] !== epoch) {
          if (stamp[ord] !== epoch) {
            if (!addCandidates) continue;
            stamp[ord] = epoch;
            score[ord] = 0;
            touched[count++] = ord;
          }
          bestStamp[ord] = epoch;
          best[ord] = f;
          holders[held++] = ord;
        } else if (f > best[ord]!) {
          best[ord] = f;
        }
      }
    }
    this.#touchedCount = count;
    const prefix = plan.model.prefix!;
    const avg = plan.model.avgLength;
    const lengths = this.#lengths;
    for (let i = 0; i < held; i++) {
      const ord = holders[i]!;
      score[ord]! += PREFIX_WEIGHT * prefix.idf * saturation(best[ord]!, lengths[ord]!, avg);
    }
  }

  /** Whether fact `a` ranks below fact `b`: a lower score, or the same and an older (lower) id. */
  #worse(a: number, b: number): boolean {
    const score = this.#score;
    const sa = score[a]!;
    const sb = score[b]!;
    if (sa !== sb) return sa < sb;
    return this.#older(a, b);
  }

  /** The `k` best of the candidates, best first, ties newest (highest id) first. */
  #topK(k: number): Hit[] {
    const touched = this.#touched;
    const score = this.#score;
    // A min-heap of the k best so far: its root is the worst of them.
    const heap: number[] = [];
    // The root's score once the heap is full: most candidates fall below it
    // and are passed over with one comparison.
    let floor = -Infinity;
    // Last met first: lists hold their facts oldest first, so ties (all
    // of a one-word query's facts may share a score) come newest first
    // and seldom displace the worst kept.
    for (let i = this.#touchedCount - 1; i >= 0 && k > 0; i--) {
      const ord = touched[i]!;
      if (heap.length < k) {
        heap.push(ord);
        for (let at = heap.length - 1; at > 0; ) {
          const up = (at - 1) >> 1;
          if (!this.#worse(heap[at]!, heap[up]!)) break;
          [heap[up], heap[at]] = [heap[at]!, heap[up]!];
          at = up;
        }
        if (heap.length === k) floor = score[heap[0]!]!;
        continue;
      }
      if (score[ord]! < floor || !this.#worse(heap[0]!, ord)) continue;
      heap[0] = ord;
      for (let at = 0; ; ) {
        const l = 2 * at + 1;
        if (l >= k) break;
        const r = l + 1;
        const c = r < k && this.#worse(heap[r]!, heap[l]!) ? r : l;
        if (!this.#worse(heap[c]!, heap[at]!)) break;
        [heap[c], heap[at]] = [heap[at]!, heap[c]!];
        at = c;
      }
      floor = score[heap[0]!]!;
    }
    heap.sort((a, b) => (this.#worse(a, b) ? 1 : this.#worse(b, a) ? -1 : 0));
    return heap.map((ord) => ({ id: this.#id(ord), score: score[ord]! }));
  }
}
