import { type Completion, MAX_PREFIX_SCAN } from './query-plan.js';

/** A dictionary word: its term and how many current facts hold it. */
interface Surface {
  term: string;
  count: number;
}

/** New words are kept unsorted until this many, then merged into the sorted ones. */
const RECENT_MAX = 1024;

/** Prefixes whose completions are kept until the dictionary changes. */
const MAX_CACHED_COMPLETIONS = 1024;

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
 * A copy of `s` that keeps nothing else alive: V8 makes a string cut from
 * a longer one (13 characters or more) a view of it, which would hold the
 * whole text it was cut from in memory for as long as the index keeps it.
 */
export function own(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * An agent's unstemmed words, each with its term and the count of current
 * facts holding it: what a prefix completes against. Words are kept in
 * code point order, new ones unsorted until there are many (or a load
 * ends); a word no fact holds any more stays in the sorted list until the
 * next merge, skipped.
 */
export class Dictionary {
  readonly #surfaces = new Map<string, Surface>();
  /** What {@link complete} answered, by prefix, since the dictionary last changed. */
  readonly #completions = new Map<string, readonly Completion[]>();
  /** Words in code point order (some may be gone: check #surfaces). */
  #sorted: string[] = [];
  /** Words added since #sorted was last built, unsorted. */
  #recent: string[] = [];
  #stale = 0;

  /** Distinct words held. */
  get size(): number {
    return this.#surfaces.size;
  }

  /** A fact holding `surface` (a word of term `term`) became current. `deferSort`: a load sorts once at its end. */
  add(surface: string, term: string, deferSort: boolean): void {
    if (this.#completions.size > 0) this.#completions.clear();
    const s = this.#surfaces.get(surface);
    if (s !== undefined) {
      s.count++;
      return;
    }
    // Kept copies: the analysis cuts words from the fact's text.
    const word = own(surface);
    this.#surfaces.set(word, { term: term === surface ? word : own(term), count: 1 });
    this.#recent.push(word);
    if (this.#recent.length > RECENT_MAX && !deferSort) this.merge();
  }

  /** A fact holding `surface` stopped being current. */
  remove(surface: string): void {
    if (this.#completions.size > 0) this.#completions.clear();
    const s = this.#surfaces.get(surface);
    if (s === undefined || --s.count > 0) return;
    this.#surfaces.delete(surface);
    this.#stale++;
    if (this.#stale > RECENT_MAX && this.#stale * 2 > this.#sorted.length) this.merge();
  }

  /** Folds the recent words into the sorted ones and drops the gone. */
  merge(): void {
    if (this.#sorted.length === 0 && this.#stale === 0) {
      // Only adds so far: every recent word is live and new.
      this.#sorted = this.#recent.sort(compareCodePoints);
      this.#recent = [];
      return;
    }
    const live = (s: string) => this.#surfaces.has(s);
    const recent = [...new Set(this.#recent)].filter(live).sort(compareCodePoints);
    const sorted = this.#sorted;
    const merged: string[] = [];
    for (let i = 0, j = 0; i < sorted.length || j < recent.length; ) {
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
    this.#stale = 0;
  }

  /**
   * The first {@link MAX_PREFIX_SCAN} words starting with `prefix` in byte
   * order, as a LevelDB range read of the dictionary gives them.
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

  /** The words in code point order, each as [word, count] or, when its term differs, [word, count, term]. */
  entries(): Array<[string, number] | [string, number, string]> {
    this.merge();
    return this.#sorted.map((w) => {
      const { term, count } = this.#surfaces.get(w)!;
      return term === w ? [w, count] : [w, count, term];
    });
  }

  /** A dictionary of {@link entries}' words (in their order). */
  static restore(words: ReadonlyArray<readonly [string, number, string?]>): Dictionary {
    const d = new Dictionary();
    for (const [word, count, term] of words) {
      d.#surfaces.set(word, { term: term ?? word, count });
      d.#sorted.push(word);
    }
    return d;
  }
}
