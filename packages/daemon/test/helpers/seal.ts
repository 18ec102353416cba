import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';

// The seal of every stored value (docs/architecture.md, "Storage"), written
// out here apart from the daemon's own code, so that the tests pin the
// on-disk format rather than echo it: `~`, the CRC-32 of
// `<key length>\n<key><payload>` (the whole key, sublevel prefix included)
// as 8 lowercase hex digits, then the payload.

/** The stored form of `payload` under the full key `key`. */
export function sealValue(key: string, payload: string): string {
  return `~${crc32(payload, crc32(`${key.length}\n${key}`)).toString(16).padStart(8, '0')}${payload}`;
}

/** The payload of a sealed value; fails the test if the seal does not hold. */
export function unsealValue(key: string, stored: string): string {
  const payload = stored.slice(9);
  assert.equal(stored, sealValue(key, payload), `the value under ${JSON.stringify(key)} is sealed`);
  return payload;
}
