// Accept/reject helpers in the manner of sinclairzx81/typebox's
// test/runtime/compiler/validate.ts (`Ok` / `Fail`), but through our own
// validators so each failure also pins the `{field, reason}` it reports.
import assert from 'node:assert/strict';
import {
  type MethodDescriptor,
  type Validation,
  validateParams,
} from '@memoryd/protocol';

/** A valid ULID (26 Crockford base-32 characters). */
export const ULID_A = '01HZY3S8Q9W6V4X2T0R8M5K7JD';
/** A second valid ULID, later than {@link ULID_A}. */
export const ULID_B = '01HZY3S8QAW6V4X2T0R8M5K7JE';
/** A valid RFC 3339 UTC time with milliseconds. */
export const TIME = '2026-12-02T11:29:00.000Z';

/** Asserts that `result` is a success. */
export function assertOk(result: Validation<unknown>, label: string): void {
  if (!result.ok) {
    assert.fail(`${label}: expected ok, got ${JSON.stringify(result.error)}`);
  }
}

/**
 * Asserts that `result` is a failure naming `field`, with a non-empty
 * reason. The reason is for people, so its text is not pinned.
 */
export function assertFail(result: Validation<unknown>, field: string, label: string): void {
  if (result.ok) assert.fail(`${label}: expected a failure at ${field}, got ok`);
  assert.equal(result.error.field, field, `${label}: field`);
  assert.equal(typeof result.error.reason, 'string', `${label}: reason`);
  assert.ok(result.error.reason.length > 0, `${label}: reason is empty`);
  // Exactly `{field, reason}`: that object goes on the wire as `data`.
  assert.deepEqual(Object.keys(result.error).sort(), ['field', 'reason'], `${label}: keys`);
}

/** Asserts that `descriptor` accepts `params`. */
export function accepts(descriptor: MethodDescriptor, params: unknown): void {
  assertOk(validateParams(descriptor, params), `${descriptor.method} ${show(params)}`);
}

/** Asserts that `descriptor` rejects `params` at `field`. */
export function rejects(descriptor: MethodDescriptor, params: unknown, field: string): void {
  assertFail(validateParams(descriptor, params), field, `${descriptor.method} ${show(params)}`);
}

/** A short rendering of a value for assertion messages (limit cases are huge). */
function show(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    // Deeper than JSON.stringify's recursion allows (the depth-limit cases).
    return '<too deep to print>';
  }
  return json.length > 120 ? `${json.slice(0, 117)}...` : json;
}

/** `unit` repeated so that the string is exactly `bytes` bytes of UTF-8. */
export function ofBytes(bytes: number, unit = 'a'): string {
  const size = Buffer.byteLength(unit, 'utf8');
  assert.equal(bytes % size, 0, `ofBytes: ${bytes} is not a multiple of ${size}`);
  const text = unit.repeat(bytes / size);
  assert.equal(Buffer.byteLength(text, 'utf8'), bytes);
  return text;
}

/**
 * A state object whose UTF-8 JSON is exactly `bytes` bytes: `{"s":"…"}`
 * is 8 bytes of framing plus the filler, so the boundary is computed, not
 * guessed. The size is re-measured with Node's encoder.
 */
export function stateOfBytes(bytes: number, unit = 'a'): Record<string, unknown> {
  const frame = Buffer.byteLength(JSON.stringify({ s: '' }), 'utf8');
  const state = { s: ofBytes(bytes - frame, unit) };
  assert.equal(Buffer.byteLength(JSON.stringify(state), 'utf8'), bytes);
  return state;
}

/**
 * An object nested `depth` levels (the outer object is level 1), built
 * iteratively. `arrays` makes every level below the first an array.
 */
export function nested(depth: number, arrays = false): Record<string, unknown> {
  let inner: unknown = 'leaf';
  for (let level = depth; level > 1; level--) inner = arrays ? [inner] : { a: inner };
  return { a: inner };
}
