// What memoryctl's --since and --until read (src/time-words.ts): RFC 3339
// as given; a date from its local midnight; now, today, yesterday; an
// amount ago in minutes, hours, days or weeks; anything else a usage error
// naming the option and every form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterParams, timeWord } from '../dist/time-words.js';

const NOW = new Date(2026, 11, 7, 15, 30, 0); // 7 December 2026, 15:30 local

describe('timeWord', () => {
  it('passes RFC 3339 through as given, offsets and fractions included', () => {
    for (const t of ['2026-12-01T09:00:00Z', '2026-12-01T10:00:00+01:00', '2026-12-01T09:00:00.123456Z']) assert.equal(timeWord(t, '--since', NOW), t);
  });

  it('reads dates, now, today, yesterday and amounts ago', () => {
    assert.equal(timeWord('2026-12-01', '--since', NOW), new Date(2026, 11, 1).toISOString());
    assert.equal(timeWord('now', '--until', NOW), NOW.toISOString());
    assert.equal(timeWord('today', '--since', NOW), new Date(2026, 11, 7).toISOString());
    assert.equal(timeWord('Yesterday', '--since', NOW), new Date(2026, 11, 6).toISOString());
    assert.equal(timeWord('30m', '--since', NOW), new Date(NOW.getTime() - 30 * 60_000).toISOString());
    assert.equal(timeWord('12h', '--since', NOW), new Date(NOW.getTime() - 12 * 3_600_000).toISOString());
    assert.equal(timeWord('7d', '--since', NOW), new Date(NOW.getTime() - 7 * 86_400_000).toISOString());
    assert.equal(timeWord('2w', '--since', NOW), new Date(NOW.getTime() - 14 * 86_400_000).toISOString());
  });

  it('refuses anything else, naming the option and the forms', () => {
    for (const t of ['', 'last week', '7 days', '-7d', '2026-02-30', '2026-12-01T09:00:00', '1y', '7D ago']) {
      assert.throws(() => timeWord(t, '--until', NOW), (err: Error) => err.name === 'UsageError' && err.message.startsWith('--until must be an RFC 3339 time') && err.message.includes(JSON.stringify(t)), t);
    }
  });

  it('makes the filter params from the options, leaving out what is not given', () => {
    assert.deepEqual(filterParams({}, NOW), {});
    assert.deepEqual(filterParams({ tag: ['a', 'b'], since: 'today' }, NOW), { tags: ['a', 'b'], since: new Date(2026, 11, 7).toISOString() });
  });
});
