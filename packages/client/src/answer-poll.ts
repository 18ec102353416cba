/**
 * Keeps the event loop polling the socket, instead of sleeping, while an
 * answer is awaited: from each request sent, for at most a window, and no
 * longer than some request is still waiting.
 *
 * Why: a search costs the daemon ~50 µs, yet a client that sleeps in
 * `epoll_wait` while it waits pays for being woken on top of that. On a
 * virtual machine without guest halt polling, waking an idle vCPU is an
 * interrupt through the host: it was ~80 µs of a ~185 µs search round
 * trip here (ADR 0014). The daemon polls after each answer for the same
 * reason (ADR 0012); this is the other end of the same trip.
 *
 * The cost is bounded: at most the window of CPU per request, nothing
 * while no request waits, and nothing at all with a window of 0.
 */
export class AnswerPoll {
  readonly #windowMs: number;
  readonly #waiting: () => boolean;
  /** Poll until then (performance.now()). */
  #deadline = 0;
  /** An immediate is pending. */
  #scheduled = false;

  /**
   * @param windowUs how long to poll after a request is sent; 0 never polls
   * @param waiting whether some request still waits for its answer
   */
  constructor(windowUs: number, waiting: () => boolean) {
    this.#windowMs = windowUs / 1000;
    this.#waiting = waiting;
  }

  /** A request was sent: poll until its answer, for the window at most. */
  sent(): void {
    if (this.#windowMs === 0) return;
    this.#deadline = performance.now() + this.#windowMs;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#turn);
  }

  // While an immediate is pending, libuv polls for I/O with a zero
  // timeout: each turn of the loop reads what arrived, then comes back.
  readonly #turn = (): void => {
    if (this.#waiting() && performance.now() < this.#deadline) setImmediate(this.#turn);
    else this.#scheduled = false;
  };
}
