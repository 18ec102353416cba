// Drives one bench cell: N connections, each with one request in flight,
// the next sent as soon as the previous answer arrives, for a warm-up and
// then a measuring window.

import { connect } from './ndjson-client.mjs';
import { summarize } from './stats.mjs';

/**
 * @typedef {object} CellSpec
 * @property {string} socketPath
 * @property {number} connections
 * @property {number} warmupMs answers before the window are not counted
 * @property {number} durationMs the measuring window
 * @property {(conn: number, seq: number) => {method: string, params: unknown}} call
 *   the request a connection sends next; `seq` counts that connection's requests
 * @property {(result: any) => string|undefined} check
 *   a reason when a result is not what the method must return
 */

/**
 * Runs a cell and returns its figures. Any error response, timeout or bad
 * result aborts the cell: a bench that swallowed failures would report the
 * speed of failing.
 * @param {CellSpec} spec
 */
export async function runCell(spec) {
  const clients = [];
  try {
    for (let i = 0; i < spec.connections; i++) clients.push(await connect(spec.socketPath));
    const now = process.hrtime.bigint();
    const windowStart = now + BigInt(spec.warmupMs) * 1_000_000n;
    const windowEnd = windowStart + BigInt(spec.durationMs) * 1_000_000n;
    const abort = { failed: false };
    const perConnection = await Promise.all(
      clients.map((client, conn) => drive(client, conn, spec, windowStart, windowEnd, abort).catch((err) => {
        abort.failed = true;
        throw err;
      })),
    );
    return summarize(perConnection.flat(), spec.durationMs);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

/**
 * One connection's loop; returns the latencies (ns) of the requests sent
 * and answered inside the window.
 * @param {import('./ndjson-client.mjs').NdjsonClient} client
 * @param {number} conn
 * @param {CellSpec} spec
 * @param {bigint} windowStart
 * @param {bigint} windowEnd
 * @param {{failed: boolean}} abort set when another connection failed
 */
async function drive(client, conn, spec, windowStart, windowEnd, abort) {
  const samples = [];
  for (let seq = 0; !abort.failed; seq++) {
    // Build the request before the clock starts: the latency is the round
    // trip (serialise, send, daemon, receive, parse), not our params.
    const { method, params } = spec.call(conn, seq);
    const t0 = process.hrtime.bigint();
    if (t0 >= windowEnd) break;
    const result = await client.request(method, params);
    const t1 = process.hrtime.bigint();
    const problem = spec.check(result);
    if (problem !== undefined) throw new Error(`${method} on connection ${conn}: ${problem}: ${JSON.stringify(result)}`);
    if (t0 >= windowStart && t1 <= windowEnd) samples.push(Number(t1 - t0));
  }
  return samples;
}
