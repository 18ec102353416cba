// The search bench's timing client, a process of its own (startSearchTimer
// in memoryd.mjs), as an agent's memoryd-mcp is. For each job the bench
// sends over the IPC channel it sends the searches through
// @memoryd/client's DaemonClient one in flight, as memoryd-mcp calls the
// daemon, on a connection of its own, then as many daemon.hello round
// trips, and sends the timings back. It lives for one scale's whole run,
// across the daemon's restarts, as a shim outlives a daemon restart: its
// own code is compiled during the first job only.
//
// Apart from the bench because the bench holds the whole dataset it loaded
// (a million facts at the largest scale, for the figures by class and for
// server-memory): a heap of hundreds of MB whose collections, on this
// 2-core machine, paused the timing loop and took a core from the daemon.
// A user's client is memoryd-mcp, which holds nothing of the sort.

import { DaemonHello, MemorySearch } from '@memoryd/protocol';
import { BENCH_CLIENT_NAME, searchClient } from './memoryd.mjs';

/**
 * What the bench asks.
 * @typedef {{socketPath: string, agentId: string, queries: string[], warmup: string[], limit: number,
 *   busyPollUs?: number}} TimerJob
 */

if (process.send === undefined) {
  process.stderr.write('search-timer.mjs runs as a child of the search bench, with an IPC channel\n');
  process.exit(2);
}

/** @param {TimerJob} job */
async function run(job) {
  const client = searchClient(job.socketPath, job.busyPollUs);
  try {
    const search = (query) => client.call(MemorySearch, { agentId: job.agentId, query, limit: job.limit });
    for (const query of job.warmup) await search(query);
    const samplesNs = [];
    let answeredWithFacts = 0;
    for (const query of job.queries) {
      const t0 = process.hrtime.bigint();
      const result = await search(query);
      samplesNs.push(Number(process.hrtime.bigint() - t0));
      if (!Array.isArray(result?.facts)) throw new Error(`memory.search answered without facts: ${JSON.stringify(result).slice(0, 200)}`);
      if (result.facts.length > 0) answeredWithFacts++;
    }
    // The floor under those figures: as many daemon.hello round trips,
    // right after, on the same connection. The daemon answers hello from
    // memory, so what it takes is the socket, both processes' event loops
    // and this machine's scheduling: a search's p99 is never below it.
    const hello = { client: BENCH_CLIENT_NAME };
    const floorNs = [];
    for (let i = 0; i < job.queries.length; i++) {
      const t0 = process.hrtime.bigint();
      await client.call(DaemonHello, hello);
      floorNs.push(Number(process.hrtime.bigint() - t0));
    }
    return { samplesNs, floorNs, answeredWithFacts, warmupSearches: job.warmup.length };
  } finally {
    await client.close();
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
