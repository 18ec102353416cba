import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VectorLoads } from '@memoryd/daemon';

// What meaning search counts as pending before an agent's vectors load
// (embed/vector-loads.ts). On PostgreSQL the notifications of writes made
// just before a start can arrive before the listing of agents: they name
// only some of an agent's facts, and the listing must not be taken for less.

describe('VectorLoads: facts pending before a load', () => {
  it('the listing\'s count stands over changes heard before it, and never lowers it', () => {
    const loads = new VectorLoads();
    // Four of seven facts heard of as changes before the listing.
    loads.wait('flaky', 1);
    for (let i = 0; i < 3; i++) loads.counted('flaky', 1);
    assert.equal(loads.pendingFacts, 4);
    loads.listed('flaky', 7);
    loads.listed('steady', 3);
    assert.equal(loads.pendingFacts, 10);
    assert.equal(loads.state('flaky'), 'waiting');
    // A listing that saw fewer (the changes came after it) keeps what was heard.
    loads.listed('flaky', 2);
    assert.equal(loads.pendingFacts, 10);
    assert.equal(loads.take(0), 'flaky');
    loads.loaded('flaky');
    assert.equal(loads.pendingFacts, 3);
    // A loaded agent listed again is not waited for again.
    loads.listed('flaky', 7);
    assert.equal(loads.state('flaky'), 'loaded');
    assert.equal(loads.pendingFacts, 3);
  });
});
