import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** A ULID as docs/protocol.md's ids are ("Conventions"): 26 characters of Crockford base 32. */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** RFC 3339 UTC with milliseconds. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A well-formed ULID that no daemon has issued (its time part is the epoch). */
export const ABSENT_ID = '00000000000000000000000000';

/** The daemon package's version, which `--version` and `daemon.hello` report. */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Asserts `obj` has exactly these keys (order ignored). */
export function assertKeys(obj: unknown, keys: string[], what = 'object'): void {
  assert.ok(obj !== null && typeof obj === 'object' && !Array.isArray(obj), `${what} is not an object: ${JSON.stringify(obj)}`);
  assert.deepEqual(Object.keys(obj).sort(), [...keys].sort(), `${what} keys: ${JSON.stringify(obj)}`);
}

/** Asserts a string is a ULID. */
export function assertUlid(v: unknown, what = 'id'): void {
  assert.equal(typeof v, 'string', `${what} is not a string`);
  assert.match(v as string, ULID, `${what} is not a ULID`);
}

/** Asserts a string is an RFC 3339 UTC millisecond timestamp within the last `maxAgeMs`. */
export function assertRecentTime(v: unknown, maxAgeMs = 60_000, what = 'time'): void {
  assert.equal(typeof v, 'string', `${what} is not a string`);
  assert.match(v as string, TIMESTAMP, `${what} is not RFC 3339 UTC with ms`);
  const age = Date.now() - Date.parse(v as string);
  assert.ok(age >= -5000 && age <= maxAgeMs, `${what} ${String(v)} is not recent`);
}

/** A string of exactly `n` UTF-8 bytes made of `unit` repeated, padded with ASCII. */
export function bytesOf(n: number, unit = 'a'): string {
  const u = Buffer.byteLength(unit);
  const s = unit.repeat(Math.floor(n / u)) + 'a'.repeat(n % u);
  assert.equal(Buffer.byteLength(s), n);
  return s;
}
