import { Kind, type TSchema, type TUnsafe, Type, TypeRegistry } from '@sinclair/typebox';

// The `since` and `until` of a filter: any RFC 3339 date-time (an offset
// or Z, seconds, an optional fraction), checked as a real instant (no
// February 30th), and read as a count of milliseconds since the epoch,
// which is what a stored `createdAt` is compared in.

const TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * The instant an RFC 3339 date-time names, in milliseconds since the
 * epoch, or undefined when `text` is not one. A fraction finer than a
 * millisecond rounds up: stored times are whole milliseconds, so a fact
 * at or after the bound is exactly one at or after its ceiling.
 */
export function timeBoundMs(text: string): number | undefined {
  const m = TIME.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return undefined;
  let offset = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const fraction = m[7] ?? '';
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0')) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, 0);
  return at.getTime() + ms - offset;
}

const TimeBoundKind = 'MemorydTimeBound';
const timeBound = Symbol('memoryd.timeBound');

export interface TTimeBound extends TUnsafe<string> {
  [timeBound]: true;
}

TypeRegistry.Set<TTimeBound>(TimeBoundKind, (_schema, value) => typeof value === 'string' && timeBoundMs(value) !== undefined);

/** An RFC 3339 date-time that bounds a filter; its JSON Schema is `format: date-time`'s pattern and a description. */
export function TimeBound(description: string): TTimeBound {
  const schema = Type.Unsafe<string>({
    [Kind]: TimeBoundKind,
    type: 'string',
    pattern: TIME.source,
    description,
  }) as TTimeBound;
  schema[timeBound] = true;
  return schema;
}

/** Why `value` fails a {@link TimeBound} schema, in words. */
export function timeBoundRule(schema: TSchema): string | undefined {
  if ((schema as Partial<TTimeBound>)[timeBound] !== true) return undefined;
  return 'must be an RFC 3339 date-time with an offset or Z, such as 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00';
}
