/**
 * Per-agent async mutex. Writes of one agent read the dedup index and the
 * counters and then write them back; run one at a time per agent, that
 * read-modify-write stays exact. Different agents proceed in parallel.
 * Reads take no lock: LevelDB reads see whole batches or nothing.
 */
export class AgentLock {
  // The tail of each agent's queue; deleted when the queue drains so the
  // map does not grow with every agent ever seen.
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Runs `fn` holding the locks of all `agentIds`. Several locks are
   * taken in sorted order, so two callers can never wait on each other.
   */
  async run<T>(agentIds: readonly string[], fn: () => Promise<T>): Promise<T> {
    const ids = [...new Set(agentIds)].sort();
    const releases: Array<() => void> = [];
    try {
      for (const id of ids) releases.push(await this.#acquire(id));
      return await fn();
    } finally {
      for (const release of releases) release();
    }
  }

  #acquire(agentId: string): Promise<() => void> {
    const previous = this.#tails.get(agentId) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    this.#tails.set(agentId, tail);
    return previous.then(() => () => {
      release();
      if (this.#tails.get(agentId) === tail) this.#tails.delete(agentId);
    });
  }
}
