/** What the budget needs of a connection: to be told its line went over. */
export interface Holder {
  /** Answers -32600 and closes: its unfinished line was the largest when the budget ran out. */
  evict(heldBytes: number): void;
}

/**
 * The bytes of unfinished lines (read, no `\n` yet) that all connections
 * hold together, against one budget (Limits.maxUnfinishedLineBytes). The
 * per-line limit alone let 120 connections each hold 7.9 MiB: 1 GB of
 * RSS. Past the budget, the connection holding the largest line is
 * evicted, and the next, until the rest fits.
 */
export class LineBudget {
  readonly #held = new Map<Holder, number>();
  #total = 0;

  constructor(private readonly limit: number) {}

  /** Bytes held now, all connections together. */
  get total(): number {
    return this.#total;
  }

  /** Records what a connection holds now; evicts the largest holders while over the budget. */
  set(holder: Holder, bytes: number): void {
    this.#total += bytes - (this.#held.get(holder) ?? 0);
    if (bytes === 0) this.#held.delete(holder);
    else this.#held.set(holder, bytes);
    while (this.#total > this.limit) {
      let largest: Holder | undefined;
      let most = 0;
      for (const [h, n] of this.#held) {
        if (n > most) {
          largest = h;
          most = n;
        }
      }
      if (largest === undefined) return;
      this.set(largest, 0);
      largest.evict(most);
    }
  }
}
