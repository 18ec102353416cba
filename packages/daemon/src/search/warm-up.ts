import { analyzeQuery } from './analyze.js';
import { docTerms } from './doc-terms.js';
import { ResidentIndex } from './resident-index.js';

/**
 * Made-up facts the warm-up indexes: enough for lists of many blocks and
 * several windows, as an agent's common words have, and few enough that
 * one search of them, before it is compiled, takes a few ms at most.
 */
const FACTS = 10_000;
/** Searches it runs on them, at most. */
const SEARCHES = 3_000;
/** Longest stretch of work between two turns of the event loop, in ms. */
const SLICE_MS = 1;

/** What the warm-up did: facts indexed, searches run, ms of work, whether it ran out of budget. */
export interface WarmUpSummary {
  facts: number;
  searches: number;
  workMs: number;
  cutShort: boolean;
}

/**
 * Runs the search code on a made-up index while the daemon has nothing
 * else to do after it starts, then drops the index.
 *
 * Why: V8 runs a function in its interpreter until it has run often
 * enough to be compiled, and the search is JavaScript around a small
 * WebAssembly kernel. A fresh daemon's first few hundred searches of
 * common words took 10-30 ms each where the same searches took under
 * 3 ms once compiled (Zipf, 100,000 facts). A daemon started as a
 * service, or by a client before the agent's first search, has idle
 * time to spend on compiling instead: searches of made-up facts take the
 * same code paths (terms, prefixes, lists of many blocks), so V8 compiles
 * them before a user's searches come.
 *
 * It only ever uses idle time: a slice runs when `idle()` says so (the
 * daemon has had no request in flight for a while), and ends at the first
 * fact added or search run after {@link SLICE_MS}, so a request that comes
 * meanwhile waits for one step at most (a search of the made-up facts:
 * a few ms before it is compiled, well under one after). While requests
 * keep coming, it waits. It stops after `budgetMs` of work or when done,
 * and touches nothing but its own index: no store, no agent, no file.
 */
export class SearchWarmUp {
  readonly #budgetMs: number;
  readonly #idle: () => boolean;
  readonly #done: (summary: WarmUpSummary) => void;
  readonly #recheckMs: number;
  #index: ResidentIndex | undefined = new ResidentIndex();
  readonly #texts: string[][] = [];
  #seed = 0x2545f491;
  readonly #words: string[];
  readonly #cdf: number[] = [];
  #searches = 0;
  #workMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #stopped = false;

  /**
   * @param budgetMs the most work it does, in ms (0: none)
   * @param idle whether the daemon is idle enough for a slice now
   * @param recheckMs how long it waits to ask `idle` again when not
   * @param done called once, when it ends (not when stopped)
   */
  constructor(budgetMs: number, idle: () => boolean, recheckMs: number, done: (summary: WarmUpSummary) => void) {
    this.#budgetMs = budgetMs;
    this.#idle = idle;
    this.#recheckMs = recheckMs;
    this.#done = done;
    // A vocabulary of made-up words of 2-4 syllables, drawn with Zipf
    // frequencies (s = 1): the commonest in most facts, as in real text.
    const syllables = ['ka', 'lo', 'mi', 'nu', 'pe', 'ra', 'si', 'to', 'vu', 'ze', 'bra', 'cho', 'dri', 'fle', 'gro', 'sta'];
    this.#words = [];
    let total = 0;
    for (let i = 0; i < 2_000; i++) {
      let word = '';
      for (let x = i + syllables.length; x > 0; x = Math.floor(x / syllables.length)) word += syllables[x % syllables.length];
      this.#words.push(word);
      this.#cdf.push((total += 1 / (i + 1)));
    }
  }

  /** Begins waiting for idle time (nothing happens with a budget of 0). */
  start(): void {
    if (this.#budgetMs <= 0) {
      this.#stopped = true;
      return;
    }
    this.#started = true;
    this.#schedule(0);
  }

  /**
   * Runs up to `ms` of the warm-up now, idle or not (nothing once it is
   * done or stopped, or before it starts). A bulk import lends it time
   * this way (daemon.ts): the searches that follow a load often come at
   * once, with no idle time between, and found the search code still to
   * compile (on the Zipf 100,000 bench, the first 300 searches after the
   * load had 6-17 over 3 ms after an idle pause, 12-22 without one).
   */
  lend(ms: number): void {
    if (!this.#started || this.#stopped || ms <= 0) return;
    this.#work(ms);
  }

  /** Stops for good (the daemon is stopping); `done` is not called. */
  stop(): void {
    this.#stopped = true;
    // Garbage from here: the made-up facts and their index.
    this.#index = undefined;
    this.#texts.length = 0;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    // Unref'd: the warm-up never keeps a stopping daemon alive.
    this.#timer = setTimeout(this.#slice, ms);
    this.#timer.unref();
  }

  readonly #slice = (): void => {
    this.#timer = undefined;
    if (this.#stopped) return;
    if (!this.#idle()) {
      this.#schedule(this.#recheckMs);
      return;
    }
    if (this.#work(SLICE_MS)) this.#schedule(0);
  };

  /** Steps for `ms` at most (the first step always runs); false once done (`done` called). */
  #work(ms: number): boolean {
    const start = performance.now();
    const end = start + Math.min(ms, this.#budgetMs - this.#workMs);
    let finished = false;
    do finished = this.#step();
    while (!finished && performance.now() < end);
    this.#workMs += performance.now() - start;
    const cutShort = !finished && this.#workMs >= this.#budgetMs;
    if (finished || cutShort) {
      const facts = this.#texts.length;
      this.stop();
      this.#done({ facts, searches: this.#searches, workMs: this.#workMs, cutShort });
      return false;
    }
    return true;
  }

  /** One fact indexed, or one search run; true when all are done. */
  #step(): boolean {
    const index = this.#index!;
    if (this.#texts.length < FACTS) {
      const text: string[] = [];
      for (let n = 8 + Math.floor(this.#random() * 13); n > 0; n--) text.push(this.#word());
      const ord = this.#texts.length;
      this.#texts.push(text);
      index.add(`01ARZ3NDEK${String(1e10 + ord).padStart(16, '0')}`, docTerms(text.join(' ')));
      return false;
    }
    // 1-3 consecutive words of a fact, a quarter with the last cut to a prefix.
    const text = this.#texts[Math.floor(this.#random() * this.#texts.length)]!;
    const n = 1 + Math.floor(this.#random() * 3);
    const at = Math.floor(this.#random() * (text.length - n + 1));
    const words = text.slice(at, at + n);
    if (this.#random() < 0.25) words[n - 1] = `${words[n - 1]!.slice(0, 3)}*`;
    index.search(analyzeQuery(words.join(' ')), 10);
    return ++this.#searches >= SEARCHES;
  }

  #word(): string {
    const u = this.#random() * this.#cdf[this.#cdf.length - 1]!;
    let lo = 0;
    let hi = this.#cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return this.#words[lo]!;
  }

  /** A seeded xorshift: the same made-up facts and searches at every start. */
  #random(): number {
    let x = this.#seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#seed = x >>> 0;
    return this.#seed / 2 ** 32;
  }
}
