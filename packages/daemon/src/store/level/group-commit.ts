import { DaemonError, readOnly, rootCause } from '../../errors.js';
import type { BatchOp, Db } from './db.js';

/** Writes operations whose keys already carry their sublevel prefix, atomically. */
type RawBatch = (ops: BatchOp[], options: { sync: boolean }) => Promise<void>;

/**
 * The store's one way to write: a chained batch of classic-level's public
 * API, filled with the operations and written as one LevelDB WriteBatch.
 * Paired here on 6-operation batches without sync, it cost 165-210 µs
 * against 330-350 µs for the array form of `batch()`, which copies and
 * checks every operation first. (Before, the store called the
 * implementations' `_batch`, which is not public: 77-116 µs.)
 */
function rawBatch(db: Db): RawBatch {
  return async (ops, options) => {
    const batch = db.batch();
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write(options);
  };
}

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
 * fails with that error. A batch that failed is not applied then; one
 * whose sync failed (or whose append was cut short but reached the disk)
 * may still be found in the log at the next open, whole. Changes of one agent
 * are serialised by the agent lock, so a change never shares a batch with
 * a later change that depends on it.
 *
 * A failed write poisons the writer: every later write is refused without
 * reaching LevelDB. A write that failed part-way (a full disk) can leave
 * a torn record in LevelDB's log, and LevelDB 1.20 appends the next
 * records after it; at the next open, recovery drops the rest of that
 * 32 KiB log block, acknowledged writes included (ADR 0016). Only a
 * reopen, which starts a fresh log, makes writing safe again: that is
 * the owner's job (store/level/supervised-store.ts), told through `onFailure`.
 */
export class GroupCommit {
  #writing = false;
  #next: Pending | undefined;
  #failure: DaemonError | undefined;
  #failureCause: string | undefined;
  readonly #write: RawBatch;
  readonly #onFailure: (err: unknown) => void;

  constructor(
    db: Db,
    private readonly sync: boolean,
    onFailure: (err: unknown) => void = () => {},
  ) {
    this.#write = rawBatch(db);
    this.#onFailure = onFailure;
  }

  /** The refusal every write gets once a write failed, or undefined while writes go through. */
  get failure(): DaemonError | undefined {
    return this.#failure;
  }

  /** What made the writer refuse writes (the failed write's root cause), or undefined. */
  get failureCause(): string | undefined {
    return this.#failureCause;
  }

  /** Resolves once `ops` are in the store (synced when `sync`). */
  write(ops: BatchOp[]): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const next = (this.#next ??= { ops: [], waiters: [] });
      for (const op of ops) next.ops.push(op);
      next.waiters.push({ resolve, reject });
      if (!this.#writing) this.#flush();
    });
  }

  /**
   * Writes `ops` at once, without sync, beside the group: for records
   * made again from the facts should a crash lose them (meaning search's
   * vectors), so that no write waits on an fsync for their sake. LevelDB
   * keeps its log in order: a later synced batch carries these too. A
   * failure here refuses later writes as any failed write does.
   */
  async writeUnsynced(ops: BatchOp[]): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      await this.#write(ops, { sync: false });
    } catch (err) {
      if (this.#failure === undefined) {
        this.#failureCause = rootCause(err);
        this.#failure = readOnly(this.#failureCause, err);
        this.#onFailure(err);
      }
      throw err;
    }
  }

  #flush(): void {
    const group = this.#next;
    this.#next = undefined;
    if (group === undefined) {
      this.#writing = false;
      return;
    }
    this.#writing = true;
    this.#write(group.ops, { sync: this.sync }).then(
      () => {
        for (const w of group.waiters) w.resolve();
        this.#flush();
      },
      (err: unknown) => {
        this.#failureCause = rootCause(err);
        this.#failure = readOnly(this.#failureCause, err);
        for (const w of group.waiters) w.reject(err);
        // Changes queued behind the failed batch never reach LevelDB.
        const queued = this.#next;
        this.#next = undefined;
        this.#writing = false;
        for (const w of queued?.waiters ?? []) w.reject(this.#failure);
        this.#onFailure(err);
      },
    );
  }
}
