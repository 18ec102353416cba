/**
 * When the daemon last had a request to answer: connections mark each
 * request begun and answered (and each read), so that work that can
 * wait (search/warm-up.ts) runs only while no client is waiting.
 */
export class Activity {
  #inFlight = 0;
  /** performance.now() of the last mark. */
  #lastAt = performance.now();

  /** Bytes came in: a request may be on its way. */
  touch(): void {
    this.#lastAt = performance.now();
  }

  /** A request began. */
  begin(): void {
    this.#inFlight++;
    this.#lastAt = performance.now();
  }

  /** A request was answered (or dropped). */
  end(): void {
    this.#inFlight--;
    this.#lastAt = performance.now();
  }

  /** No request in flight, and none begun, answered or read for `ms`. */
  quietFor(ms: number): boolean {
    return this.#inFlight === 0 && performance.now() - this.#lastAt >= ms;
  }
}
