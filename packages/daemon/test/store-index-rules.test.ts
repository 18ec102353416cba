// The rules both backends keep their search indexes by (store/index-rules.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitBudget, LoadFailures, loadRetryMs } from '../dist/store/index-rules.js';

describe('index rules', () => {
  it('waits 1 s after a failed load, doubling with each failure in a row, at most a minute', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 20].map(loadRetryMs), [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('blocks a failed load until its wait is over, never one that waiting cannot mend', () => {
    const failures = new LoadFailures<Error & { code?: string }>((err) => err.code === 'damaged');
    failures.failed('a', new Error('busy'), 0);
    assert.ok(failures.blocking('a', 999) !== undefined);
    assert.equal(failures.blocking('a', 1_000), undefined);
    failures.failed('a', new Error('busy'), 1_000);
    assert.ok(failures.blocking('a', 2_999) !== undefined, 'the second wait is 2 s');
    assert.equal(failures.blocking('a', 3_000), undefined);
    failures.succeeded('a');
    assert.equal(failures.has('a'), false);
    failures.failed('b', Object.assign(new Error('a damaged record'), { code: 'damaged' }), 0);
    assert.ok(failures.blocking('b', Number.MAX_SAFE_INTEGER) !== undefined);
  });

  it('sends the least recently used away until within the budget, never the one in use, skipping what must stay', () => {
    const indexes = new Map([
      ['old', { memoryBytes: 40 }],
      ['pinned', { memoryBytes: 40 }],
      ['middle', { memoryBytes: 40 }],
      ['used', { memoryBytes: 40 }],
    ]);
    const gone: string[] = [];
    const left = fitBudget(indexes, 160, 90, 'used', (agentId) => {
      if (agentId === 'pinned') return false;
      gone.push(agentId);
      return true;
    });
    assert.deepEqual(gone, ['old', 'middle']);
    assert.equal(left, 80);
    assert.equal(fitBudget(indexes, 80, 90, 'used', () => assert.fail('within the budget: nothing goes')), 80);
  });
});
