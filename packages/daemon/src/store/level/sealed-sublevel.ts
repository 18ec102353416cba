import { compareCodePoints } from '../../search/resident-index.js';
import { type KeyRange, wellFormedKey } from './keys.js';
import { damagedRecord, seal, unseal } from './record-seal.js';

/** A sublevel of the root database with UTF-8 keys and values (see context.ts). */
export interface RawSublevel {
  prefixKey(key: string, keyFormat: 'utf8'): string;
  get(key: string, options?: ReadOptions): Promise<string | undefined>;
  getSync(key: string, options?: ReadOptions): string | undefined;
  getMany(keys: string[], options?: ReadOptions): Promise<Array<string | undefined>>;
  iterator(options: RawIteratorOptions): RawIterator;
  clear(): Promise<void>;
}

/** An explicit snapshot of the database, or none (the latest state). */
export interface ReadOptions {
  snapshot?: unknown;
}

interface RawIteratorOptions extends KeyRange, ReadOptions {
  reverse?: boolean;
  lte?: string;
}

/** What the store needs of a level iterator. */
export interface RawIterator {
  next(): Promise<[string, string] | undefined>;
  nextv(size: number): Promise<Array<[string, string]>>;
  close(): Promise<void>;
}

/** A range read: bounds, direction, a cap on entries, a snapshot. */
export interface RangeOptions extends KeyRange, ReadOptions {
  reverse?: boolean;
  limit?: number;
}

/**
 * One sublevel whose every value is sealed (store/level/record-seal.ts): writes
 * seal (WriteBatch does, through {@link seal}), every read checks, and a
 * value that fails is a Damaged error naming the record, never returned.
 */
export class SealedSublevel {
  readonly #raw: RawSublevel;
  readonly #prefix: string;

  constructor(
    raw: RawSublevel,
    /** The sublevel's name (keys.ts), which says what its records are. */
    readonly name: string,
  ) {
    this.#raw = raw;
    this.#prefix = raw.prefixKey('', 'utf8');
  }

  /** The key as the root database holds it: with the sublevel's prefix. */
  fullKey(key: string): string {
    return this.#prefix + key;
  }

  /** The stored form of `payload` under `key`. */
  seal(key: string, payload: string): string {
    return seal(this.#prefix + key, payload);
  }

  /** The payload of the value stored under `key`; a Damaged error if it fails its checksum. */
  open(key: string, stored: string): string {
    const payload = unseal(this.#prefix + key, stored);
    if (payload === undefined) throw damagedRecord(this.name, key);
    return payload;
  }

  async get(key: string, options: ReadOptions = {}): Promise<string | undefined> {
    const stored = await this.#raw.get(key, options);
    return stored === undefined ? undefined : this.open(key, stored);
  }

  getSync(key: string, options: ReadOptions = {}): string | undefined {
    const stored = this.#raw.getSync(key, options);
    return stored === undefined ? undefined : this.open(key, stored);
  }

  async getMany(keys: string[], options: ReadOptions = {}): Promise<Array<string | undefined>> {
    const stored = await this.#raw.getMany(keys, options);
    return stored.map((value, i) => (value === undefined ? undefined : this.open(keys[i]!, value)));
  }

  /** Entries of a range, checked; see {@link SealedIterator}. */
  iterator(options: RangeOptions = {}): SealedIterator {
    return new SealedIterator(this, this.#raw, options);
  }

  /** Deletes every entry of the sublevel. */
  clear(): Promise<void> {
    return this.#raw.clear();
  }

  /** The sublevel without checks: for sealing a store of layout 1 and for verify, nothing else. */
  get raw(): RawSublevel {
    return this.#raw;
  }
}

/** Entries per read when {@link SealedIterator.all} drains a range. */
const ALL_CHUNK = 1000;

/**
 * A range read whose every entry is checked. LevelDB is asked for the
 * range without its far bound, and the first entry past the bound is
 * read and checked too: a damaged key that sorts past the bound would
 * otherwise end the range there, silently dropping every entry after it
 * (classic-level stops at the first key out of range). That entry fails
 * the read only if its key has not the shape of a key of that sublevel
 * (keys.ts wellFormedKey): a damaged separator or id, most likely one of
 * this range's keys; a well-formed key is another agent's or term's, and
 * its damage is that range's error, not this read's. A read thus touches at most one more
 * entry, or one more batch of ≤ 16 KiB, than it returns.
 */
export class SealedIterator {
  readonly #sublevel: SealedSublevel;
  readonly #raw: RawIterator;
  readonly #beyond: (key: string) => boolean;
  #left: number;
  #done = false;

  constructor(sublevel: SealedSublevel, raw: RawSublevel, options: RangeOptions) {
    this.#sublevel = sublevel;
    const { gt, gte, lt, reverse = false, limit, snapshot } = options;
    const near: RawIteratorOptions = reverse ? { ...(lt === undefined ? {} : { lt }), reverse } : { ...(gt === undefined ? {} : { gt }), ...(gte === undefined ? {} : { gte }) };
    if (snapshot !== undefined) near.snapshot = snapshot;
    this.#raw = raw.iterator(near);
    this.#beyond = reverse
      ? (key) => (gte !== undefined && compareCodePoints(key, gte) < 0) || (gt !== undefined && compareCodePoints(key, gt) <= 0)
      : (key) => lt !== undefined && compareCodePoints(key, lt) >= 0;
    this.#left = limit === undefined || limit < 0 ? Infinity : limit;
  }

  /** The next entry `[key, payload]`, or undefined at the end of the range. */
  async next(): Promise<[string, string] | undefined> {
    if (this.#done || this.#left <= 0) return undefined;
    const entry = await this.#raw.next();
    if (entry === undefined) {
      this.#done = true;
      return undefined;
    }
    return this.#take(entry);
  }

  /** Up to `size` entries; an empty array only at the end of the range. */
  async nextv(size: number): Promise<Array<[string, string]>> {
    const out: Array<[string, string]> = [];
    while (out.length === 0 && !this.#done && this.#left > 0) {
      const entries = await this.#raw.nextv(Math.min(size, this.#left));
      if (entries.length === 0) this.#done = true;
      for (const entry of entries) {
        const taken = this.#take(entry);
        if (taken === undefined) break;
        out.push(taken);
      }
    }
    return out;
  }

  /** Every remaining entry; closes the iterator. */
  async all(): Promise<Array<[string, string]>> {
    try {
      const out: Array<[string, string]> = [];
      for (let chunk = await this.nextv(ALL_CHUNK); chunk.length > 0; chunk = await this.nextv(ALL_CHUNK)) {
        for (const entry of chunk) out.push(entry);
      }
      return out;
    } finally {
      await this.close();
    }
  }

  close(): Promise<void> {
    return this.#raw.close();
  }

  /** Checks an entry; returns it in range, or ends the range (after checking the entry past it). */
  #take([key, stored]: [string, string]): [string, string] | undefined {
    if (this.#done || this.#left <= 0) return undefined;
    if (this.#beyond(key)) {
      this.#done = true;
      if (!wellFormedKey(this.#sublevel.name, key)) this.#sublevel.open(key, stored);
      return undefined;
    }
    this.#left--;
    return [key, this.#sublevel.open(key, stored)];
  }
}

