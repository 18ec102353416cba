// Deterministic ULIDs for imported bench facts. admin.import keeps ids and
// times as given, so the bench makes them itself: 48 bits of milliseconds
// (the fact's createdAt) then 80 seeded random bits, in Crockford base 32.

/** Crockford's base 32 alphabet (no I, L, O, U), as ULIDs use it. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The largest time a ULID can hold: 48 bits of milliseconds. */
const MAX_TIME_MS = 2 ** 48 - 1;

/**
 * A ULID for `timeMs` whose 80 random bits come from `rand`. Ids made for
 * strictly increasing times are strictly increasing, whatever the random
 * part, because the time is the leading (most significant) 10 characters.
 * @param {number} timeMs Unix time in ms, 0 … 2^48-1
 * @param {() => number} rand floats in [0, 1)
 */
export function ulid(timeMs, rand) {
  if (!Number.isInteger(timeMs) || timeMs < 0 || timeMs > MAX_TIME_MS) {
    throw new RangeError(`ULID time out of range: ${timeMs}`);
  }
  let time = '';
  let t = timeMs;
  // 10 digits of 5 bits = 50 bits for a 48-bit time, so the first digit is
  // 0-7: the pattern @memoryd/protocol's Ulid schema checks.
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[Math.floor(rand() * 32)];
  return time + random;
}
