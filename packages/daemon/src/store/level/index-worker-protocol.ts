import { DaemonError, DaemonErrorCodes, storageError } from '../../errors.js';
import type { IndexSnapshot } from '../../search/index-image.js';
import type { StoredFact } from './codec.js';
import type { PreparedFact } from './fact-prep.js';

/** What index-builder.ts sends the index worker, in this order: begin, facts..., end. */
export type BuildRequest =
  | { type: 'begin'; agentId: string; length: number }
  | { type: 'facts'; agentId: string; ids: string[]; texts: string[] }
  | { type: 'end' };

/** What the worker answers: an ack per facts message, then the index, or an error. */
export type BuildReply =
  | { type: 'ack' }
  | { type: 'done'; snapshot: IndexSnapshot; facts: number }
  | ({ type: 'error' } & WorkerFailure);

/** What fact-prep-pool.ts sends a worker that prepares facts: facts, each with whether it becomes current. */
export interface PrepareRequest {
  type: 'prepare';
  id: number;
  facts: Array<[StoredFact, boolean]>;
}

/** What it answers: the facts prepared (fact-prep.ts), in order, or why it could not. */
export type PrepareReply =
  | { type: 'prepared'; id: number; prepared: PreparedFact[] }
  | ({ type: 'error'; id: number } & WorkerFailure);

/** An error as it crosses from the worker: its name, message and code. */
export interface WorkerFailure {
  name: string;
  message: string;
  code: string | undefined;
}

/**
 * The error a worker's failure at `what` is on this side: Damaged and
 * Decode as the worker raised them, anything else a storage error.
 */
export function workerError(what: string, failure: WorkerFailure): Error {
  const code = failure.code;
  if (code === DaemonErrorCodes.Damaged || code === DaemonErrorCodes.Decode) return new DaemonError(code, failure.message);
  return storageError(what, new Error(`${failure.name}: ${failure.message}`));
}
