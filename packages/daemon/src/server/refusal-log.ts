import type { Logger } from '../logger.js';

/** At most one refusal line this often. */
const EVERY_MS = 60_000;

/**
 * Logs refused connections without letting a flood of them flood the
 * log: the first refusal is a warn line at once; those that follow within
 * a minute are counted, and one line a minute says how many there were.
 */
export class RefusalLog {
  #suppressed = 0;
  #lastLine = -Infinity;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly limit: number,
  ) {}

  /** Notes one refused connection. */
  refused(): void {
    const now = Date.now();
    if (this.#timer === undefined && now - this.#lastLine >= EVERY_MS) {
      this.#lastLine = now;
      this.log.warn('connection refused: too many connections', { limit: this.limit });
      return;
    }
    this.#suppressed++;
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#flush(), this.#lastLine + EVERY_MS - now);
    // Pending counts must not keep a stopping daemon alive.
    this.#timer.unref();
  }

  /** Logs what is still counted (at a stop). */
  close(): void {
    clearTimeout(this.#timer);
    this.#flush();
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#suppressed === 0) return;
    this.log.warn('connections refused: too many connections', { limit: this.limit, refused: this.#suppressed, sinceMs: Date.now() - this.#lastLine });
    this.#suppressed = 0;
    this.#lastLine = Date.now();
  }
}
