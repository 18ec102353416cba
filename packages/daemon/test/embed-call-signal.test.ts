// The signal of one provider call (embed/call-signal.ts): it aborts with the
// daemon's stop or its own bound, and once disposed leaves nothing hooked
// on the long-lived stop signal, however many calls there were (what
// AbortSignal.any does not do on Node 20: nodejs/node#55351).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { withTimeout } from '@memoryd/test-support';
import { CallSignal } from '../dist/embed/call-signal.js';

describe('CallSignal', () => {
  it('aborts when the outer signal does, and says it did not time out', () => {
    const stop = new AbortController();
    const call = new CallSignal(stop.signal, 60_000);
    assert.equal(call.signal.aborted, false);
    stop.abort(new Error('stopping'));
    assert.equal(call.signal.aborted, true);
    assert.equal(call.timedOut, false);
    assert.equal((call.signal.reason as Error).message, 'stopping');
    call.dispose();
  });

  it('aborts at once for an outer signal already aborted', () => {
    const stop = new AbortController();
    stop.abort();
    const call = new CallSignal(stop.signal, 60_000);
    assert.equal(call.signal.aborted, true);
    call.dispose();
  });

  it('times out on its own bound, and says so', async () => {
    const call = new CallSignal(new AbortController().signal, 20);
    await withTimeout(new Promise((resolve) => call.signal.addEventListener('abort', resolve)), 10_000, 'the bound');
    assert.equal(call.timedOut, true);
    assert.equal((call.signal.reason as DOMException).name, 'TimeoutError');
    call.dispose();
  });

  it('leaves nothing hooked on the outer signal once disposed, after many calls', () => {
    const stop = new AbortController();
    for (let i = 0; i < 10_000; i++) new CallSignal(stop.signal, 60_000).dispose();
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  });
});
