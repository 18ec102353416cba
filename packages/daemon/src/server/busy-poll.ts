/**
 * Keeps the event loop polling the sockets, instead of sleeping, for a
 * short window after each answer.
 *
 * Why: a search costs the daemon ~100 µs of CPU, and a process that sleeps
 * between requests pays for waking up on top of it. On virtual machines
 * without halt polling, waking an idle vCPU is an interrupt through the
 * host, measured at 30-70 µs of a round trip (ADR 0012). A client that
 * sends its next request within the window finds the daemon awake.
 *
 * The cost is bounded: at most the window of CPU per answer, nothing while
 * no request comes. A request that arrives meanwhile is read on the loop's
 * next turn and, once answered, starts a new window.
 */
export class BusyPoll {
  readonly #windowNs: bigint;
  /** Poll until then (process.hrtime, ns). */
  #until = 0n;
  /** An immediate is pending. */
  #polling = false;

  /** @param windowUs how long to poll after an answer; 0 never polls. */
  constructor(windowUs: number) {
    this.#windowNs = BigInt(Math.round(windowUs * 1000));
  }

  /** An answer was written: poll for the window from now. */
  answered(): void {
    if (this.#windowNs === 0n) return;
    this.#until = process.hrtime.bigint() + this.#windowNs;
    if (!this.#polling) {
      this.#polling = true;
      setImmediate(this.#poll);
    }
  }

  /** Stops polling on the loop's next turn (the daemon is stopping). */
  stop(): void {
    this.#until = 0n;
  }

  // A pending immediate makes libuv poll for I/O without blocking; each
  // turn of the loop reads whatever arrived, then comes back here.
  readonly #poll = (): void => {
    if (process.hrtime.bigint() < this.#until) setImmediate(this.#poll);
    else this.#polling = false;
  };
}
