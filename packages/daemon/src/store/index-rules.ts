/**
 * The rules both backends keep their agents' search indexes by
 * (store/level/search-indexes.ts, store/postgres/pg-search-index.ts): the
 * memory budget is checked after every change, an index that failed to
 * load is tried again after a wait that doubles, and an index loads a page
 * of facts at a time.
 */

/** Facts read and indexed at a time when an index loads: other requests are served between pages. */
export const LOAD_PAGE = 1_000;

/** First wait before a failed load is tried again; doubles with each failure in a row, up to {@link LOAD_RETRY_MAX_MS}. */
export const LOAD_RETRY_FIRST_MS = 1_000;
export const LOAD_RETRY_MAX_MS = 60_000;

/** The wait after the `failures`-th failure in a row: 1 s, 2 s, 4 s… at most a minute. */
export function loadRetryMs(failures: number): number {
  return Math.min(LOAD_RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1), LOAD_RETRY_MAX_MS);
}

/**
 * Agents whose index failed to load, with their error and when they may
 * be tried again. An error `permanent` says waiting cannot mend (damage
 * in the store) is never tried again.
 */
export class LoadFailures<E extends Error> {
  readonly #failed = new Map<string, { err: E; failures: number; due: number }>();
  readonly #permanent: (err: E) => boolean;

  constructor(permanent: (err: E) => boolean = () => false) {
    this.#permanent = permanent;
  }

  /** The agent's load failed with `err` at `now`. */
  failed(agentId: string, err: E, now: number): void {
    const failures = (this.#failed.get(agentId)?.failures ?? 0) + 1;
    this.#failed.set(agentId, { err, failures, due: this.#permanent(err) ? Infinity : now + loadRetryMs(failures) });
  }

  /** The error a load of the agent may not be tried past yet, or undefined when it may (it never failed, or its wait is over). */
  blocking(agentId: string, now: number): E | undefined {
    const f = this.#failed.get(agentId);
    return f !== undefined && now < f.due ? f.err : undefined;
  }

  /** Whether the agent failed before, its wait over or not. */
  has(agentId: string): boolean {
    return this.#failed.has(agentId);
  }

  /** The agent's last failure, its wait over or not. */
  error(agentId: string): E | undefined {
    return this.#failed.get(agentId)?.err;
  }

  /** The agent's load succeeded: its failures are forgotten. */
  succeeded(agentId: string): void {
    this.#failed.delete(agentId);
  }

  clear(): void {
    this.#failed.clear();
  }
}

/**
 * Sends indexes away, least recently used first (the order of `indexes`),
 * never `keep`, while they take more than `budget`: `evict` sends one away
 * and says whether it could. Answers what they take after.
 */
export function fitBudget<I extends { memoryBytes: number }>(
  indexes: ReadonlyMap<string, I | undefined>,
  bytes: number,
  budget: number,
  keep: string,
  evict: (agentId: string, index: I) => boolean,
): number {
  if (bytes <= budget) return bytes;
  for (const [agentId, index] of [...indexes]) {
    if (bytes <= budget) break;
    if (index === undefined || agentId === keep) continue;
    const freed = index.memoryBytes;
    if (evict(agentId, index)) bytes -= freed;
  }
  return bytes;
}
