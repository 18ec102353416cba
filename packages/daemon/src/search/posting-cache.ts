import type { Posting } from './postings.js';

/** A cached list head as a search reads it: postings made on demand. */
export interface CachedList {
  /** How many postings the head holds. */
  length: number;
  /** The `i`-th posting of the list. */
  at(i: number): Posting;
  /** Whether the head is the whole list. */
  whole: boolean;
}

/**
 * A list head packed: the ids in one flat string (ULIDs are 26 characters)
 * and the numbers in typed arrays, some 34 bytes a posting where posting
 * objects with their ids cost ~170 and keep the heap large.
 */
interface Entry {
  ids: string;
  frequencies: Uint16Array;
  lengths: Uint16Array;
  whole: boolean;
}

const ID_LENGTH = 26;

function pack(postings: readonly Posting[], whole: boolean): Entry {
  const frequencies = new Uint16Array(postings.length);
  const lengths = new Uint16Array(postings.length);
  postings.forEach((p, i) => {
    frequencies[i] = p.frequency;
    lengths[i] = p.length;
  });
  // join copies the characters into one new string, so the cache holds no
  // slices of the keys the ids came from.
  return { ids: postings.map((p) => p.id).join(''), frequencies, lengths, whole };
}

function view(e: Entry): CachedList {
  return {
    length: e.frequencies.length,
    at: (i) => ({ id: e.ids.slice(i * ID_LENGTH, (i + 1) * ID_LENGTH), frequency: e.frequencies[i]!, length: e.lengths[i]! }),
    whole: e.whole,
  };
}

/**
 * The heads of recently read posting lists, and recent prefix completions,
 * kept in memory so that a search for words searched before reads no
 * LevelDB iterator (each read is a thread-pool round trip). Bounded by a
 * total number of postings, least recently used first out.
 *
 * Correctness rests on generations: every change of an agent's index bumps
 * the agent's generation and drops the lists of the terms it touched (and
 * the agent's completions). A search notes the generation before reading
 * and stores what it read only if the generation has not moved since, so
 * nothing read before a change is kept after it.
 */
export class PostingCache {
  readonly #lists = new Map<string, Entry>();
  readonly #completions = new Map<string, { generation: number; value: unknown }>();
  readonly #generations = new Map<string, number>();
  #size = 0;

  constructor(readonly maxPostings: number) {}

  /** The agent's generation: compare before storing what was read. */
  generation(agentId: string): number {
    return this.#generations.get(agentId) ?? 0;
  }

  /** A change of these terms of the agent was committed. */
  changed(agentId: string, terms: Iterable<string>): void {
    this.#generations.set(agentId, this.generation(agentId) + 1);
    for (const term of terms) this.#drop(listKey(agentId, term));
  }

  /** Drops everything cached of an agent (its searches no longer read LevelDB). */
  forget(agentId: string): void {
    const prefix = listKey(agentId, '');
    for (const key of this.#lists.keys()) if (key.startsWith(prefix)) this.#drop(key);
    for (const key of this.#completions.keys()) if (key.startsWith(prefix)) this.#completions.delete(key);
  }

  /** The cached head of a term's list, if any (and marks it recently used). */
  list(agentId: string, term: string): CachedList | undefined {
    const key = listKey(agentId, term);
    const entry = this.#lists.get(key);
    if (entry === undefined) return undefined;
    this.#lists.delete(key);
    this.#lists.set(key, entry);
    return view(entry);
  }

  /** Stores the head of a list read since `generation`, unless the agent changed meanwhile. */
  storeList(agentId: string, term: string, generation: number, postings: Posting[], whole: boolean): void {
    if (generation !== this.generation(agentId) || postings.length > this.maxPostings / 4) return;
    // Weighted counts fit 16 bits in any fact the limits allow; a list that would not is left uncached.
    if (postings.some((p) => p.frequency > 0xffff || p.length > 0xffff || p.id.length !== ID_LENGTH)) return;
    const key = listKey(agentId, term);
    const old = this.#lists.get(key);
    if (old !== undefined && old.frequencies.length >= postings.length) return;
    this.#drop(key);
    this.#lists.set(key, pack(postings, whole));
    this.#size += postings.length;
    for (const [k, e] of this.#lists) {
      if (this.#size <= this.maxPostings) break;
      this.#lists.delete(k);
      this.#size -= e.frequencies.length;
    }
  }

  /** Cached completions of a prefix, valid while the agent has not changed. */
  completions<T>(agentId: string, prefix: string): T | undefined {
    const hit = this.#completions.get(listKey(agentId, prefix));
    return hit !== undefined && hit.generation === this.generation(agentId) ? (hit.value as T) : undefined;
  }

  /** Stores completions read at `generation`. */
  storeCompletions(agentId: string, prefix: string, generation: number, value: unknown): void {
    if (generation !== this.generation(agentId)) return;
    const key = listKey(agentId, prefix);
    this.#completions.delete(key);
    this.#completions.set(key, { generation, value });
    // Small entries; keep the newest few thousand.
    if (this.#completions.size > 4096) this.#completions.delete(this.#completions.keys().next().value!);
  }

  #drop(key: string): void {
    const e = this.#lists.get(key);
    if (e === undefined) return;
    this.#lists.delete(key);
    this.#size -= e.frequencies.length;
  }
}

function listKey(agentId: string, word: string): string {
  return `${agentId}\x00${word}`;
}
