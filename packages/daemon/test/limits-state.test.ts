// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Limits" for checkpoints and imports, just inside and just
// outside: state (a JSON object, at most 1 MiB as UTF-8 JSON, nested at
// most 64 levels; arrays, null and scalars rejected), messageCount
// (integer 0-2,147,483,647), and admin.import (at most 1,000 records; more
// is -32602 as a whole and imports nothing).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminExport, AdminImport } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { accept, reject, runLimitCases } from './helpers/limit-cases.js';
import { assertInvalidParams } from './helpers/rpc.js';
import { makeUlid } from '@memoryd/test-support';
import { bytesOf } from './helpers/shapes.js';

const shared = useDaemon();
const MiB = 1024 * 1024;

/** `{"s":"…"}` of exactly `bytes` bytes of UTF-8 JSON, filled with `unit`. */
function stateOfBytes(bytes: number, unit = 'a'): Record<string, unknown> {
  const state = { s: bytesOf(bytes - '{"s":""}'.length, unit) };
  assert.equal(Buffer.byteLength(JSON.stringify(state)), bytes);
  return state;
}

/** An object `depth` levels deep (the state itself is level 1), ending in `leaf` containers. */
function nested(depth: number, container: 'object' | 'array' = 'object'): Record<string, unknown> {
  let v: unknown = container === 'object' ? {} : [];
  for (let i = 1; i < depth - 1; i++) v = container === 'object' ? { a: v } : [v];
  return depth === 1 ? {} : { a: v };
}

describe('state', () => {
  const save = (state: unknown) => ({ agentId: 'limits-state', state });
  runLimitCases(shared, [
    accept('a state of exactly 1 MiB', 'checkpoint.save', save(stateOfBytes(MiB))),
    reject('a state of 1 MiB + 1 byte', 'checkpoint.save', save(stateOfBytes(MiB + 1)), 'state'),
    accept('1 MiB of 3-byte chars', 'checkpoint.save', save(stateOfBytes(MiB, '\u20ac'))),
    reject('1 MiB + 1 of 3-byte chars', 'checkpoint.save', save(stateOfBytes(MiB + 1, '\u20ac')), 'state'),
    accept('an empty object', 'checkpoint.save', save({})),
    accept('64 levels of objects', 'checkpoint.save', save(nested(64))),
    reject('65 levels of objects', 'checkpoint.save', save(nested(65)), 'state'),
    accept('64 levels through arrays', 'checkpoint.save', save(nested(64, 'array'))),
    reject('65 levels through arrays', 'checkpoint.save', save(nested(65, 'array')), 'state'),
    reject('an array', 'checkpoint.save', save([]), 'state'),
    reject('null', 'checkpoint.save', save(null), 'state'),
    reject('a string', 'checkpoint.save', save('{}'), 'state'),
    reject('a number', 'checkpoint.save', save(5), 'state'),
    reject('a boolean', 'checkpoint.save', save(true), 'state'),
    reject('a missing state', 'checkpoint.save', { agentId: 'limits-state' }, 'state'),
  ]);

  it('rejects a 10,000-level state on state, and keeps serving', async () => {
    // Written by hand: JSON.stringify itself overflows the stack at this depth.
    const deep = '{"a":'.repeat(9_999) + '{}' + '}'.repeat(9_999);
    const c = await shared.connect();
    c.sendRaw(`{"jsonrpc":"2.0","id":"deep","method":"checkpoint.save","params":{"agentId":"limits-state","state":${deep}}}\n`);
    const m = await c.nextMessage(10_000);
    assert.ok(!Array.isArray(m) && m.error, JSON.stringify(m).slice(0, 300));
    assert.equal(m.id, 'deep');
    assertInvalidParams(m.error, 'state');
    assert.equal((await c.call('daemon.hello')).error, undefined);
  });

  it('keeps the depth-64 state whole', async () => {
    const state = nested(64, 'array');
    const s = await shared.client.call('checkpoint.save', { agentId: 'limits-deep', state });
    assert.equal(s.error, undefined);
    const r = await shared.client.call('checkpoint.resume', { agentId: 'limits-deep' });
    assert.deepEqual((r.result as { checkpoint: { state: unknown } }).checkpoint.state, state);
  });
});

describe('messageCount', () => {
  const save = (messageCount: unknown) => ({ agentId: 'limits-count', state: {}, messageCount });
  runLimitCases(shared, [
    accept('messageCount 0', 'checkpoint.save', save(0)),
    accept('messageCount 2147483647', 'checkpoint.save', save(2_147_483_647)),
    reject('messageCount -1', 'checkpoint.save', save(-1), 'messageCount'),
    reject('messageCount 2147483648', 'checkpoint.save', save(2_147_483_648), 'messageCount'),
    reject('messageCount 1.5', 'checkpoint.save', save(1.5), 'messageCount'),
    reject('messageCount "3"', 'checkpoint.save', save('3'), 'messageCount'),
    reject('messageCount 1e300', 'checkpoint.save', save(1e300), 'messageCount'),
  ]);
});

describe('admin.import size', () => {
  const facts = (agentId: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      type: 'fact',
      agentId,
      id: makeUlid(1_700_000_000_000 + i, i),
      content: `imported fact ${i}`,
      createdAt: new Date(1_700_000_000_000 + i).toISOString(),
    }));

  it('imports 1,000 records in one call', async () => {
    const r = await shared.client.ok(AdminImport, { records: facts('import-1000', 1000) });
    assert.deepEqual(r, { imported: 1000, skipped: 0, rejected: [] });
    const page = await shared.client.ok(AdminExport, { agentId: 'import-1000', limit: 1000 });
    assert.equal(page.records.length, 1000);
  });

  it('rejects 1,001 records as a whole and imports none of them', async () => {
    const e = await shared.client.fail('admin.import', { records: facts('import-1001', 1001) });
    assertInvalidParams(e, 'records');
    const page = await shared.client.ok(AdminExport, { agentId: 'import-1001' });
    assert.deepEqual(page, { records: [] });
  });

  it('rejects records that are not an array', async () => {
    assertInvalidParams(await shared.client.fail('admin.import', { records: {} }), 'records');
    assertInvalidParams(await shared.client.fail('admin.import', {}), 'records');
  });
});
