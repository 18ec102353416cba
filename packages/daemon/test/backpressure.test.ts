// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "JSON-RPC details": a connection's requests may be answered in
// any order (clients match by id); the daemon stops reading from a
// connection whose responses the client is not reading, so that one client
// can never hold memory or time that others need. A client pipelines
// 20,000 memory.add without reading: its own writes must back up (the
// daemon stopped reading), a second connection must be served promptly
// meanwhile, and once the first client reads, every request is answered
// exactly once. --no-sync keeps this about flow control, not the disk.
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { withTimeout } from '@memoryd/test-support';
import { useDaemon } from './helpers/fixture.js';
import { type RpcResponse } from './helpers/rpc.js';

const shared = useDaemon({ args: ['--no-sync'] });
const TOTAL = 20_000;

/** Connects a raw socket that is paused (not reading) from the start. */
function rawPaused(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection(path);
    s.pause();
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

describe('backpressure', () => {
  it('a client that does not read cannot stall others, and gets every answer once it reads', async () => {
    const flooder = await rawPaused(shared.daemon.socket);
    let drained = false;
    flooder.on('drain', () => (drained = true));
    let sawFalse = false;
    for (let i = 0; i < TOTAL; i++) {
      const line = JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'memory.add',
        params: { agentId: `flood-${i % 4}`, content: `pipelined fact number ${i}` },
      });
      if (!flooder.write(line + '\n')) sawFalse = true;
    }
    assert.ok(sawFalse, 'socket.write returned false at least once');
    const written = flooder.writableLength;

    // The bystander is served while the flooder is stuck: 50 round trips,
    // each bounded only against a hang (how fast is for the benches). This
    // also gives an unbounded reader time to have swallowed the flood.
    const bystander = await shared.connect();
    for (let i = 0; i < 50; i++) {
      const r = await bystander.call('memory.add', { agentId: 'bystander', content: `served ${i}` }, 20_000);
      assert.equal(r.error, undefined);
    }

    // The daemon stopped reading: the flooder's own buffer has not emptied.
    assert.ok(flooder.writableLength > 0, 'the flooder\'s writes are still queued (the daemon stopped reading)');
    assert.equal(drained, false, 'no drain while the flooder is not reading');
    assert.ok(written > 0);

    // Now read everything; every id is answered exactly once, in any order.
    const seen = new Uint8Array(TOTAL);
    let answered = 0;
    let errors = 0;
    let buf = '';
    const all = new Promise<void>((resolve, reject) => {
      flooder.setEncoding('utf8');
      flooder.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) !== -1) {
          const r = JSON.parse(buf.slice(0, nl)) as RpcResponse;
          buf = buf.slice(nl + 1);
          if (typeof r.id !== 'number' || r.id < 0 || r.id >= TOTAL) return reject(new Error(`unexpected id ${JSON.stringify(r.id)}`));
          if (seen[r.id]) return reject(new Error(`id ${r.id} answered twice`));
          seen[r.id] = 1;
          if (r.error !== undefined) errors++;
          if (++answered === TOTAL) resolve();
        }
      });
      flooder.once('close', () => reject(new Error(`closed after ${answered} answers`)));
    });
    flooder.resume();
    await withTimeout(all, 90_000, `all ${TOTAL} answers (got ${answered})`);
    assert.equal(errors, 0);
    const status = await bystander.call('daemon.status');
    assert.ok((status.result as { facts: number }).facts >= TOTAL + 50);
    flooder.destroy();
  });

  it('answers a slow request and 100 quick ones pipelined behind it, each under its own id', async () => {
    const c = await shared.connect();
    // A slow request (a 1 MiB checkpoint) followed by quick ones; the
    // client matches by id, so any order of answers is correct.
    const big = c.call('checkpoint.save', { agentId: 'order', state: { blob: 'b'.repeat(1024 * 1024 - 16) } });
    const quick = Array.from({ length: 100 }, (_, i) => c.request(`q${i}`, 'daemon.hello'));
    const rs = await Promise.all([big, ...quick]);
    for (const r of rs) assert.equal(r.error, undefined);
    assert.deepEqual(rs.slice(1).map((r) => r.id), quick.map((_, i) => `q${i}`));
  });
});
