/** First wait before a failed load is tried again; doubles up to {@link LOAD_RETRY_MAX_MS}. */
export const LOAD_RETRY_FIRST_MS = 1_000;
export const LOAD_RETRY_MAX_MS = 60_000;

/** An agent whose vectors are still to load. */
interface Waiting {
  /** Its current facts, as far as this daemon knows: pending until the load says which have a vector. */
  facts: number;
  /** Not before this time (after a failed load). */
  due: number;
  /** The next wait, should this load fail too. */
  retryMs: number;
}

/**
 * Which agents' vectors are loaded into memory, and which wait to be: at
 * start every agent with facts waits; an agent a change names and this
 * daemon does not know waits too (loading a new agent finds nothing and
 * costs one read); a failed load is tried again later, with backoff, its
 * facts counted as pending meanwhile; a resync makes every loaded agent
 * wait to load again. One load runs at a time (the worker's).
 */
export class VectorLoads {
  readonly #waiting = new Map<string, Waiting>();
  readonly #loaded = new Set<string>();
  #loading: string | undefined;
  /** The load in progress is to run again once done: changes may have gone unheard while it read. */
  #again = false;
  #unloadedFacts = 0;

  /** Current facts of agents still to load (a load in progress counts). */
  get pendingFacts(): number {
    return this.#unloadedFacts;
  }

  /** `loaded` or `loading`: its changes apply to its vectors; `waiting`: its load will see them; undefined: unknown here. */
  state(agentId: string): 'loaded' | 'loading' | 'waiting' | undefined {
    if (this.#loading === agentId) return 'loading';
    if (this.#loaded.has(agentId)) return 'loaded';
    return this.#waiting.has(agentId) ? 'waiting' : undefined;
  }

  /** The agent is to load (now), with `facts` current facts still to account for. */
  wait(agentId: string, facts: number): void {
    if (this.#loading === agentId) {
      this.#again = true;
      return;
    }
    this.#loaded.delete(agentId);
    const waiting = this.#waiting.get(agentId);
    if (waiting !== undefined) {
      waiting.due = 0;
      return;
    }
    this.#waiting.set(agentId, { facts, due: 0, retryMs: LOAD_RETRY_FIRST_MS });
    this.#unloadedFacts += facts;
  }

  /**
   * The listing of agents at start says the agent has `facts` current
   * facts. An agent already waiting was named by changes heard before the
   * listing (on PostgreSQL, notifications of writes just made), which count
   * only the facts they named: the listing's count, when higher, stands.
   */
  listed(agentId: string, facts: number): void {
    const waiting = this.#waiting.get(agentId);
    if (this.state(agentId) === undefined) this.wait(agentId, facts);
    else if (waiting !== undefined && facts > waiting.facts) {
      this.#unloadedFacts += facts - waiting.facts;
      waiting.facts = facts;
    }
  }

  /** Every loaded agent loads again (changes of other daemons may have gone unheard); their facts are not pending. */
  reloadAll(): void {
    for (const agentId of [...this.#loaded]) this.wait(agentId, 0);
  }

  /** A fact of a waiting agent came (+1) or went (−1). */
  counted(agentId: string, sign: 1 | -1): void {
    const waiting = this.#waiting.get(agentId);
    if (waiting === undefined) return;
    const facts = Math.max(0, waiting.facts + sign);
    this.#unloadedFacts += facts - waiting.facts;
    waiting.facts = facts;
  }

  /** The next agent due to load at `now`, marked loading; undefined when none is due. */
  take(now: number): string | undefined {
    for (const [agentId, w] of this.#waiting) {
      if (w.due > now) continue;
      this.#loading = agentId;
      return agentId;
    }
    return undefined;
  }

  /** When the next waiting agent is due (Infinity when none waits). */
  nextDue(): number {
    let due = Infinity;
    for (const w of this.#waiting.values()) due = Math.min(due, w.due);
    return due;
  }

  /** The load in progress succeeded. */
  loaded(agentId: string): void {
    const w = this.#waiting.get(agentId);
    if (w !== undefined) this.#unloadedFacts -= w.facts;
    this.#waiting.delete(agentId);
    this.#loaded.add(agentId);
    if (this.#loading !== agentId) return;
    this.#loading = undefined;
    if (this.#again) this.wait(agentId, 0);
    this.#again = false;
  }

  /** The load in progress failed: tried again after a wait, its facts still pending. Answers the wait. */
  failed(agentId: string, now: number): number {
    if (this.#loading === agentId) {
      this.#loading = undefined;
      this.#again = false;
    }
    const w = this.#waiting.get(agentId);
    if (w === undefined) return 0;
    const wait = w.retryMs;
    w.due = now + wait;
    w.retryMs = Math.min(2 * w.retryMs, LOAD_RETRY_MAX_MS);
    // Tried last next time: the others go first.
    this.#waiting.delete(agentId);
    this.#waiting.set(agentId, w);
    return wait;
  }

  /** Forgets every agent (a rebuild lists them again). */
  clear(): void {
    this.#waiting.clear();
    this.#loaded.clear();
    this.#loading = undefined;
    this.#again = false;
    this.#unloadedFacts = 0;
  }
}
