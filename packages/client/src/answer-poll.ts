/**
 * How much one answer moves the share of answers caught ({@link AnswerPoll}):
 * an average over about the last 8.
 */
const CAUGHT_WEIGHT = 1 / 8;

/**
 * Polling goes on while at least this share of the answers come within
 * the window: a caught answer saves a wake-up (some 0.1-0.3 ms here), a
 * missed one costs a core for the whole window (0.5 ms) while the daemon
 * works, so polling pays only when well over half are caught (ADR 0021).
 */
const CAUGHT_ENOUGH = 0.75;

/** While polling is off, one request in this many is still polled for, to see whether answers got faster. */
const RETRY_EVERY = 16;

/**
 * Keeps the event loop polling the socket, instead of sleeping, while an
 * answer is awaited: from each request sent, for at most a window, and no
 * longer than some request is still waiting; and only while polling pays.
 *
 * Why: a search costs the daemon ~50 µs, yet a client that sleeps in
 * `epoll_wait` while it waits pays for being woken on top of that. On a
 * virtual machine without guest halt polling, waking an idle vCPU is an
 * interrupt through the host: it was ~80 µs of a ~185 µs search round
 * trip here (ADR 0014). The daemon polls after each answer for the same
 * reason (ADR 0012); this is the other end of the same trip.
 *
 * Why only while it pays: an answer that comes after the window finds the
 * client asleep all the same, and the window spent polling took a core
 * the daemon could use. On 2 cores it is worse than that: the daemon's
 * answer wakes the client on the daemon's own core (Unix sockets wake
 * their reader as a hand-over), where the client's next poll then holds
 * the daemon off. A fresh daemon, whose searches run slower while V8
 * compiles them, answered its first 2,000 searches at a median of
 * 1.0-1.2 ms with the client polling and 0.7-0.9 ms without (ADR 0021).
 * So the poll keeps the share of recent answers that came within the
 * window, and polls only while at least three quarters did; while it does
 * not, one request in {@link RETRY_EVERY} is polled for all the same, so
 * that answers that got faster bring polling back.
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
  /** When the last request was sent (performance.now()). */
  #sentAt = 0;
  /** The share of recent answers that came within the window of their request being sent. */
  #caught = 1;
  /** Requests sent without polling since the last one polled for. */
  #skipped = 0;

  /**
   * @param windowUs how long to poll after a request is sent; 0 never polls
   * @param waiting whether some request still waits for its answer
   */
  constructor(windowUs: number, waiting: () => boolean) {
    this.#windowMs = windowUs / 1000;
    this.#waiting = waiting;
  }

  /** Whether polling is on: recent answers mostly came within the window. */
  get polling(): boolean {
    return this.#windowMs > 0 && this.#caught >= CAUGHT_ENOUGH;
  }

  /** A request was sent: poll until its answer, for the window at most, if polling pays. */
  sent(): void {
    if (this.#windowMs === 0) return;
    const now = performance.now();
    this.#sentAt = now;
    if (!this.polling && ++this.#skipped < RETRY_EVERY) return;
    this.#skipped = 0;
    this.#deadline = now + this.#windowMs;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#turn);
  }

  /**
   * An answer came in. Whether it came within the window of the last
   * request sent (with several requests in flight, an approximation
   * that errs towards polling) moves the share caught.
   */
  answered(): void {
    if (this.#windowMs === 0) return;
    const caught = performance.now() - this.#sentAt <= this.#windowMs ? 1 : 0;
    this.#caught += (caught - this.#caught) * CAUGHT_WEIGHT;
  }

  // While an immediate is pending, libuv polls for I/O with a zero
  // timeout: each turn of the loop reads what arrived, then comes back.
  readonly #turn = (): void => {
    if (this.#waiting() && performance.now() < this.#deadline) setImmediate(this.#turn);
    else this.#scheduled = false;
  };
}
