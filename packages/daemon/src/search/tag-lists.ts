import { atLeast, lowerBound } from './typed-arrays.js';

/** One tag's facts: their ordinals in rising order (dead ones too, until a renumbering), and how many are live. */
export class TagList {
  ords: Uint32Array;
  /** Ordinals held in {@link ords}. */
  n: number;
  /** Of them, the live facts. */
  live: number;

  constructor(ords: Uint32Array, n: number, live: number) {
    this.ords = ords;
    this.n = n;
    this.live = live;
  }

  /** Whether `ord` is listed (a binary search). */
  holds(ord: number): boolean {
    const at = lowerBound(this.ords, this.n, ord);
    return at < this.n && this.ords[at] === ord;
  }
}

/**
 * An index's facts by tag (the tags' keys, search/normal-form.ts), for
 * filters and `memory.tags`. Facts get ordinals in rising order, so each
 * list stays sorted as it grows; a removed fact stays listed (the
 * index's liveness marks it) until the index renumbers.
 */
export class TagLists {
  #lists = new Map<string, TagList>();

  /** The list of `key`, or undefined when no fact ever carried it since the last renumbering. */
  get(key: string): TagList | undefined {
    return this.#lists.get(key);
  }

  /** Lists fact `ord` under each of its tag keys. */
  add(ord: number, keys: readonly string[]): void {
    for (const key of keys) {
      let list = this.#lists.get(key);
      if (list === undefined) this.#lists.set(key, (list = new TagList(new Uint32Array(4), 0, 0)));
      if (list.n === list.ords.length) list.ords = atLeast(list.ords, Math.max(4, 2 * list.n), (k) => new Uint32Array(k));
      list.ords[list.n++] = ord;
      list.live++;
    }
  }

  /** Counts a removed fact out of its tags' lists (its ordinal stays until {@link renumber}). */
  remove(keys: readonly string[]): void {
    for (const key of keys) {
      const list = this.#lists.get(key);
      if (list !== undefined) list.live--;
    }
  }

  /** The live facts' ordinals mapped by `map` (the index's renumbering), dead ones dropped, tags left without facts gone. */
  renumber(alive: Uint8Array, map: Uint32Array): void {
    const lists = new Map<string, TagList>();
    for (const [key, list] of this.#lists) {
      if (list.live <= 0) continue;
      const ords = new Uint32Array(list.live);
      let n = 0;
      for (let i = 0; i < list.n; i++) {
        const ord = list.ords[i]!;
        if (alive[ord] !== 0) ords[n++] = map[ord]!;
      }
      ords.sort();
      lists.set(key, new TagList(ords, n, n));
    }
    this.#lists = lists;
  }

  /** Every tag with live facts, and how many. */
  counts(): Array<{ tag: string; count: number }> {
    const out: Array<{ tag: string; count: number }> = [];
    for (const [tag, list] of this.#lists) if (list.live > 0) out.push({ tag, count: list.live });
    return out;
  }

  /** What the lists take, in bytes: their arrays, and about 100 a tag for its key and entry. */
  get memoryBytes(): number {
    let bytes = 0;
    for (const list of this.#lists.values()) bytes += list.ords.byteLength + 100;
    return bytes;
  }

  /** The lists as data: each tag's key, count and live count in `meta`, their ordinals one after the other. */
  snapshot(): { meta: Array<[string, number, number]>; ords: Uint32Array } {
    const meta: Array<[string, number, number]> = [];
    let total = 0;
    for (const [key, list] of this.#lists) {
      meta.push([key, list.n, list.live]);
      total += list.n;
    }
    const ords = new Uint32Array(total);
    let at = 0;
    for (const list of this.#lists.values()) {
      ords.set(list.ords.subarray(0, list.n), at);
      at += list.n;
    }
    return { meta, ords };
  }

  /** Lists from {@link snapshot}'s data (each a view of `ords` until it grows). */
  static restore(meta: Array<[string, number, number]>, ords: Uint32Array): TagLists {
    const lists = new TagLists();
    let at = 0;
    for (const [key, n, live] of meta) {
      if (at + n > ords.length) throw new Error(`tag list ${JSON.stringify(key)} lies outside the image`);
      lists.#lists.set(key, new TagList(ords.subarray(at, at + n), n, live));
      at += n;
    }
    return lists;
  }
}
