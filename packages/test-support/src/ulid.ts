const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function base32(n: bigint, width: number): string {
  let s = '';
  for (let i = 0; i < width; i++) {
    s = CROCKFORD[Number(n % 32n)] + s;
    n /= 32n;
  }
  return s;
}

/**
 * A valid ULID with the given time and a counter as its random part, so
 * import tests can write ids in a known order without a clock.
 */
export function makeUlid(timeMs: number, counter: number): string {
  return base32(BigInt(timeMs), 10) + base32(BigInt(counter), 16);
}
