// bench:search's PostgreSQL column (issue 16, ADR 0027): the same corpus
// and queries through a daemon on `--store postgres`, on the server the
// PG* variables name, its tables in a schema of its own that is dropped
// after. Searched as the LevelDB daemon is: through @memoryd/client's
// DaemonClient from the timing process, one in flight, every search from
// the first after the load, then as many daemon.hello round trips.

import fs from 'node:fs';
import path from 'node:path';
import { connect } from '../ndjson-client.mjs';
import { freshSchema } from '../pg-schema.mjs';
import { SEARCHED_AGENT, importBatches } from './dataset.mjs';
import { importAll, shutdownDaemon, startDaemon, startSearchTimer } from './memoryd.mjs';
import { drawQueries } from './queries.mjs';
import { latency } from './run-scale.mjs';

const IMPORT_BATCH = 1_000;

/** Why the PostgreSQL column cannot run here, or undefined when it can. */
export function postgresMissing() {
  return process.env.PGHOST === undefined && process.env.PGDATABASE === undefined
    ? 'no PostgreSQL server: set the PG* variables (PGHOST, PGDATABASE, ...), e.g. from scripts/ci/pg-throwaway.sh start DIR'
    : undefined;
}

/**
 * Loads `scale` into a fresh PostgreSQL daemon and times the searches.
 * @param {import('./dataset.mjs').Scale} scale
 * @param {{seed: number, queries: number, limit: number, inFlight: number, clientBusyPollUs?: number}} opts
 * @param {string} root a temp dir for the socket
 * @param {(line: string) => void} progress
 */
export async function runPostgres(scale, opts, root, progress) {
  const say = (line) => progress(`${scale.name} (postgres): ${line}`);
  const { schema, drop } = await freshSchema('memoryd_bench');
  const dir = path.join(root, `${scale.name}-postgres`);
  const socketPath = path.join(dir, 'memoryd.sock');
  try {
    say(`starting memoryd --store postgres (schema ${schema})`);
    fs.mkdirSync(dir, { recursive: true });
    const child = await startDaemon(socketPath, path.join(dir, 'data'), `${scale.name} postgres`, {
      args: ['--store', 'postgres'],
      env: { PGOPTIONS: `-c search_path=${schema}` },
    });
    const client = await connect(socketPath);
    try {
      /** @type {import('./dataset.mjs').KeptFact[]} */
      const kept = [];
      const load = await importAll(client, importBatches(scale, { seed: opts.seed, batchSize: IMPORT_BATCH, kept }), {
        total: scale.total, inFlight: opts.inFlight, progress: say,
      });
      say(`loaded in ${(load.ms / 1000).toFixed(1)} s`);
      const queries = drawQueries(kept, opts.queries, opts.seed);
      const timer = startSearchTimer();
      try {
        const searched = await timer.time(socketPath, SEARCHED_AGENT, queries, { warmup: [], limit: opts.limit, busyPollUs: opts.clientBusyPollUs });
        const search = latency(searched.samplesNs);
        const floor = latency(searched.floorNs);
        say(`searched: p50 ${search.p50Ms.toFixed(3)} ms, p99 ${search.p99Ms.toFixed(3)} ms (daemon.hello after: p50 ${floor.p50Ms.toFixed(3)} ms)`);
        return {
          scale: scale.name,
          facts: scale.total,
          load: { ms: load.ms, factsPerSecond: load.imported / (load.ms / 1000) },
          search: { ...search, withHits: searched.answeredWithFacts, floor },
        };
      } finally {
        await timer.close();
      }
    } finally {
      await shutdownDaemon(client, child);
    }
  } finally {
    await drop();
  }
}
