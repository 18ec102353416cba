// The search bench's timing client, a process of its own (startSearchTimer
// in subjects.mjs), as an agent's memoryd-mcp is. For each job the bench
// sends over the IPC channel it connects one @memoryd/client DaemonClient
// per subject (each from the checkout the subject names, so a build is
// timed through its own client), sends every query to every subject, one
// request in flight, interleaved: query i goes to each subject in turn,
// the order rotated by one subject per query, so that no subject always
// comes right after another's work. It sends the timings back.
//
// Apart from the bench because the bench holds the whole dataset it loaded
// (a million facts at the largest scale): a heap of hundreds of MB whose
// collections would pause the timing loop. A user's client is memoryd-mcp,
// which holds nothing of the sort.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What the bench asks.
 * @typedef {{label: string, socketPath: string, checkout: string, busyPollUs?: number, filter?: Record<string, unknown>}} TimedSubject
 * @typedef {{subjects: TimedSubject[], agentId: string, queries: string[], limit: number}} TimerJob
 */

if (process.send === undefined) {
  process.stderr.write('search-timer.mjs runs as a child of the search bench, with an IPC channel\n');
  process.exit(2);
}

/** Bound on one search, ms: a slow peer's search is a figure, not a failure. */
const SEARCH_TIMEOUT_MS = 120_000;

/** @type {Map<string, Promise<{client: any, protocol: any}>>} */
const modules = new Map();

/** The client and protocol packages of a checkout, loaded once. @param {string} checkout */
function packagesOf(checkout) {
  let loaded = modules.get(checkout);
  if (loaded === undefined) {
    const load = (pkg) => import(pathToFileURL(path.join(checkout, 'packages', pkg, 'dist', 'index.js')).href);
    loaded = Promise.all([load('client'), load('protocol')]).then(([client, protocol]) => ({ client, protocol }));
    modules.set(checkout, loaded);
  }
  return loaded;
}

/** A connected client of one subject, and its search call. @param {TimedSubject} subject @param {TimerJob} job */
async function open(subject, job) {
  const { client: clientPkg, protocol } = await packagesOf(subject.checkout);
  const client = new clientPkg.DaemonClient({
    socket: subject.socketPath, autostart: false, requestTimeoutMs: SEARCH_TIMEOUT_MS, clientName: 'memoryd-bench-search',
    ...(subject.busyPollUs === undefined ? {} : { busyPollUs: subject.busyPollUs }),
  });
  await client.connect();
  // A subject may be a server under a filter (bench:search --filters): the same server is then several subjects.
  const search = (query) => client.call(protocol.MemorySearch, { agentId: job.agentId, query, limit: job.limit, ...subject.filter });
  return { client, search };
}

/** @param {TimerJob} job */
async function run(job) {
  const opened = [];
  try {
    for (const subject of job.subjects) opened.push(await open(subject, job));
    const n = opened.length;
    /** @type {number[][]} */
    const samplesNs = opened.map(() => []);
    const withFacts = opened.map(() => 0);
    for (let q = 0; q < job.queries.length; q++) {
      const query = /** @type {string} */ (job.queries[q]);
      for (let k = 0; k < n; k++) {
        const s = (q + k) % n;
        const t0 = process.hrtime.bigint();
        const result = await /** @type {{search: (q: string) => Promise<any>}} */ (opened[s]).search(query);
        /** @type {number[]} */ (samplesNs[s]).push(Number(process.hrtime.bigint() - t0));
        if (!Array.isArray(result?.facts)) throw new Error(`${job.subjects[s]?.label}: memory.search answered without facts: ${JSON.stringify(result).slice(0, 200)}`);
        if (result.facts.length > 0) withFacts[s]++;
      }
    }
    return { samplesNs, withFacts };
  } finally {
    await Promise.all(opened.map((o) => o.client.close()));
  }
}

process.on('message', (/** @type {TimerJob} */ job) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (err) => process.send?.({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
// The bench closed the channel: done.
process.on('disconnect', () => process.exit(0));
