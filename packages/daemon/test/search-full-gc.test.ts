// The full garbage collection that follows a large index load (ADR 0013):
// it really collects (an unreachable object is gone after it), it does so
// without node's --expose-gc, and it leaves no `gc` in the global scope.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { collectGarbage } from '@memoryd/daemon/search';

describe('collectGarbage', () => {
  test('collects an unreachable object, without --expose-gc and without a global gc', async () => {
    assert.ok(!process.execArgv.includes('--expose-gc'), 'the test runs without --expose-gc');
    let ref: WeakRef<object> | undefined;
    (() => {
      ref = new WeakRef({ payload: new Array(10_000).fill('garbage') });
    })();
    // A WeakRef's target lives at least until the job that made it ends.
    await turn();
    const ms = collectGarbage();
    assert.equal(ref!.deref(), undefined, 'the object is collected');
    assert.ok(Number.isFinite(ms) && ms >= 0, `took ${ms} ms`);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined, 'no gc in the global scope');
  });

  test('keeps what is reachable', async () => {
    const kept = { payload: new Array(10_000).fill('kept') };
    const ref = new WeakRef(kept);
    await turn();
    collectGarbage();
    assert.equal(ref.deref(), kept);
  });
});
