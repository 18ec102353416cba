import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { storageError } from '../../errors.js';
import { type BuildReply, type BuildRequest, workerError } from './index-worker-protocol.js';
import { ResidentIndex } from '../../search/resident-index.js';
import { countersAt, expectCount } from './count-check.js';
import { type Db, type Sublevels, guard } from './db.js';
import { agentRange, splitKey } from './keys.js';
import { LOAD_PAGE } from '../index-rules.js';

/**
 * The worker's script (index-worker.ts, which fact-prep-pool.ts runs too): the bundle's sibling when the daemon runs bundled
 * (scripts/bundle-daemon.mjs builds both), else the compiled module.
 */
export function workerScript(): URL {
  for (const candidate of ['./memoryd-index-worker.mjs', './index-worker.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error('the search index worker script is missing (neither memoryd-index-worker.mjs nor store/level/index-worker.js)');
}

/**
 * Builds an agent's search index from its current facts as of one
 * LevelDB snapshot, in a worker thread: this thread only reads the facts
 * and passes their text on, so searches and writes of every agent go on
 * while a large index builds. `undefined` if `stopped()` turned true
 * meanwhile. A count that disagrees with the agent's counters is Damaged,
 * like any read of a damaged store.
 */
export async function buildIndex(db: Db, subs: Sublevels, agentId: string, length: number, stopped: () => boolean): Promise<ResidentIndex | undefined> {
  const worker = new Worker(workerScript());
  const replies: BuildReply[] = [];
  let wake: (() => void) | undefined;
  let failure: unknown;
  worker.on('message', (m: BuildReply) => {
    replies.push(m);
    wake?.();
  });
  worker.on('error', (err) => {
    failure ??= err;
    wake?.();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the search index worker exited (code ${code})`);
    wake?.();
  });
  const next = async (): Promise<BuildReply> => {
    while (replies.length === 0) {
      if (failure !== undefined) throw storageError(`build the search index of agent ${agentId}`, failure);
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    const reply = replies.shift()!;
    if (reply.type === 'error') throw workerError(`build the search index of agent ${agentId}`, reply);
    return reply;
  };
  const send = (m: BuildRequest) => worker.postMessage(m);
  const snapshot = db.snapshot();
  try {
    send({ type: 'begin', agentId, length });
    const facts = subs.fact.iterator({ ...agentRange(agentId), snapshot });
    let inFlight = 0;
    try {
      for (let read = 0; ; ) {
        if (stopped()) return undefined;
        // A page is one message to the worker; two are in flight at most.
        const chunk = await guard(`read the facts of agent ${agentId}`, () => facts.nextv(LOAD_PAGE));
        if (chunk.length === 0) {
          // An index that silently lacked facts would hide them for good.
          expectCount('current facts indexed for search', agentId, read, (await countersAt(subs, agentId, { snapshot })).facts);
          break;
        }
        read += chunk.length;
        send({ type: 'facts', agentId, ids: chunk.map(([key]) => splitKey(key).rest), texts: chunk.map(([, text]) => text) });
        if (++inFlight >= 2) {
          await next();
          inFlight--;
        }
      }
    } finally {
      await guard('close a facts iterator', () => facts.close());
    }
    for (; inFlight > 0; inFlight--) await next();
    send({ type: 'end' });
    const done = await next();
    if (done.type !== 'done') throw storageError(`build the search index of agent ${agentId}`, new Error(`unexpected ${done.type} from the worker`));
    return ResidentIndex.restore(done.snapshot);
  } finally {
    await guard('close a snapshot', () => snapshot.close());
    await worker.terminate();
  }
}
