/** A counting semaphore: at most `permits` holders at once, FIFO waiters. */
export class Semaphore {
  private waiters: Array<() => void> = [];

  constructor(private permits: number) {}

  /** Permits free right now. */
  get available(): number {
    return this.permits;
  }

  /** Resolves once a permit is held; pair with {@link release}. */
  acquire(): Promise<void> {
    if (this.permits > 0) {
      this.permits--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.permits++;
  }
}
