import type { BatchOp, Db } from './context.js';

interface Pending {
  ops: BatchOp[];
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

/**
 * Group commit: changes that arrive while a batch is being written go out
 * together as the next batch, one LevelDB write (and, with sync, one
 * fsync) for all of them. A lone writer is written at once, so sequential
 * latency is that of a plain batch; under concurrency the per-write cost
 * of the binding call and the sync is shared.
 *
 * Atomicity holds: each change's operations all land in one LevelDB batch,
 * which is applied whole or not at all; if it fails, every change in it
 * fails with that error and none of them is applied. Changes of one agent
 * are serialised by the agent lock, so a change never shares a batch with
 * a later change that depends on it.
 */
export class GroupCommit {
  #writing = false;
  #next: Pending | undefined;

  constructor(
    private readonly db: Db,
    private readonly sync: boolean,
  ) {}

  /** Resolves once `ops` are in the store (synced when `sync`). */
  write(ops: BatchOp[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const next = (this.#next ??= { ops: [], waiters: [] });
      for (const op of ops) next.ops.push(op);
      next.waiters.push({ resolve, reject });
      if (!this.#writing) this.#flush();
    });
  }

  #flush(): void {
    const group = this.#next;
    this.#next = undefined;
    if (group === undefined) {
      this.#writing = false;
      return;
    }
    this.#writing = true;
    this.db.batch(group.ops, { sync: this.sync }).then(
      () => {
        for (const w of group.waiters) w.resolve();
        this.#flush();
      },
      (err: unknown) => {
        for (const w of group.waiters) w.reject(err);
        this.#flush();
      },
    );
  }
}
