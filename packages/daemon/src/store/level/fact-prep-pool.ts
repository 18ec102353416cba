import { Worker } from 'node:worker_threads';
import { storageError } from '../../errors.js';
import type { StoredFact } from './codec.js';
import { type PreparedFact, prepareFact } from './fact-prep.js';
import { workerScript } from './index-builder.js';
import { type PrepareReply, type PrepareRequest, workerError } from './index-worker-protocol.js';

/**
 * Fewer facts than this are prepared on the event loop: a trip to the
 * worker and back costs about as much as preparing a few dozen.
 */
const IN_THREAD_BELOW = 64;

/**
 * A worker with nothing to do for this long is ended; the next import
 * starts another (some 30 ms). Short: an idle worker holds some 40 MB.
 */
const IDLE_MS = 250;

/**
 * The worker's young generation, in MB: it allocates an import's analyses
 * and drops them a call later, so a small one collects often and cheaply
 * and keeps its memory small (Worker's public resourceLimits option).
 */
const WORKER_YOUNG_MB = 4;

/**
 * Prepares the facts of a bulk import on a worker thread (fact-prep.ts):
 * each one's stored value, dedup hash and analysis, which depend on the
 * fact alone, so an import's facts are prepared while the event loop
 * writes the ones before and applies them to the index. The machine's
 * other core does the analysis; the event loop is left what needs the
 * store: the checks, the batch and the index.
 *
 * One worker, started at the first large import and ended after
 * {@link IDLE_MS} without work; a worker that fails fails the imports
 * waiting on it (a storage error with the cause), and the next import
 * starts another.
 */
export class FactPrepPool {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: (p: PreparedFact[]) => void; reject: (err: Error) => void }>();
  #idle: NodeJS.Timeout | undefined;
  #closed = false;

  /** Prepares `facts` (each with whether it becomes current), in order. */
  async prepare(facts: Array<[StoredFact, boolean]>): Promise<PreparedFact[]> {
    if (facts.length < IN_THREAD_BELOW || this.#closed) return facts.map(([fact, current]) => prepareFact(fact, current));
    const worker = this.#started();
    const id = this.#nextId++;
    clearTimeout(this.#idle);
    // Referenced while it works: a caller awaits it.
    worker.ref();
    return new Promise<PreparedFact[]>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'prepare', id, facts } satisfies PrepareRequest);
    });
  }

  /** Ends the worker; what waits on it fails. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(new Error('the store is closing'));
    await worker?.terminate();
  }

  #started(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(workerScript(), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
    worker.on('message', (m: PrepareReply) => this.#answer(m));
    worker.on('error', (err) => this.#lost(worker, err));
    worker.on('exit', (code) => this.#lost(worker, new Error(`the fact preparation worker exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #answer(m: PrepareReply): void {
    const waiting = this.#waiting.get(m.id);
    this.#waiting.delete(m.id);
    if (m.type === 'prepared') waiting?.resolve(m.prepared);
    else waiting?.reject(workerError('prepare imported facts', m));
    if (this.#waiting.size > 0) return;
    // An idle worker must not keep the event loop alive.
    this.#worker?.unref();
    this.#idle = setTimeout(() => void this.#end(), IDLE_MS).unref();
  }

  #lost(worker: Worker, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    this.#failAll(err);
  }

  #failAll(err: Error): void {
    for (const { reject } of this.#waiting.values()) reject(storageError('prepare imported facts', err));
    this.#waiting.clear();
  }

  async #end(): Promise<void> {
    if (this.#waiting.size > 0 || this.#worker === undefined) return;
    const worker = this.#worker;
    this.#worker = undefined;
    await worker.terminate();
  }
}
