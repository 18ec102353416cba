// The daemon's worker thread, in one of two roles, by what it is sent:
// - it builds one agent's search index off the daemon's event loop
//   (index-builder.ts sends the facts, read from one LevelDB snapshot):
//   decodes and analyses each fact as the writes that indexed it did, and
//   hands the finished index back as data, its arrays moved;
// - it prepares the facts of imports (fact-prep-pool.ts): each one's
//   stored value, dedup hash and analysis (fact-prep.ts), so that the
//   event loop only writes them and applies them to the index.
import { parentPort } from 'node:worker_threads';
import { UNIT, docTerms } from '../../search/doc-terms.js';
import { ResidentIndex } from '../../search/resident-index.js';
import { decodeFact } from './codec.js';
import { prepareFact } from './fact-prep.js';
import type { BuildReply, BuildRequest, PrepareReply, PrepareRequest, WorkerFailure } from './index-worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('index-worker.js runs as a worker thread');

let index: ResidentIndex | undefined;

/** An error as it crosses the thread. */
function described(err: unknown): WorkerFailure {
  const e = err as { name?: unknown; message?: unknown; code?: unknown };
  return { name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined };
}

function prepare(m: PrepareRequest): PrepareReply {
  try {
    return { type: 'prepared', id: m.id, prepared: m.facts.map(([fact, current]) => prepareFact(fact, current)) };
  } catch (err) {
    return { type: 'error', id: m.id, ...described(err) };
  }
}

port.on('message', (m: BuildRequest | PrepareRequest) => {
  if (m.type === 'prepare') {
    port.postMessage(prepare(m));
    return;
  }
  try {
    if (m.type === 'begin') {
      index = new ResidentIndex();
      // About a posting a word: the summed length counts UNIT a word.
      index.beginLoad(Math.ceil(m.length / UNIT));
      return;
    }
    if (index === undefined) throw new Error(`${m.type} before begin`);
    if (m.type === 'facts') {
      for (let i = 0; i < m.ids.length; i++) {
        const id = m.ids[i]!;
        const fact = decodeFact(`fact ${id} of agent ${m.agentId}`, m.texts[i]!, id);
        index.add(fact.id, docTerms(fact));
      }
      port.postMessage({ type: 'ack' } satisfies BuildReply);
      return;
    }
    index.endLoad();
    const snapshot = index.snapshot();
    const buffers = new Set<ArrayBuffer>();
    for (const a of Object.values(snapshot.arrays)) buffers.add(a.buffer as ArrayBuffer);
    port.postMessage({ type: 'done', snapshot, facts: index.facts } satisfies BuildReply, [...buffers]);
    index = undefined;
  } catch (err) {
    port.postMessage({ type: 'error', ...described(err) } satisfies BuildReply);
  }
});
