import { Kind, type TSchema, type TUnsafe, Type, TypeRegistry } from '@sinclair/typebox';

// TypeBox's standard keywords count UTF-16 code units, but the limits of
// docs/protocol.md "Limits" are in UTF-8 bytes (content, query), in code
// points (tags) and in JSON size and depth (state). These custom kinds keep those limits inside
// the one schema that also yields the TypeScript type and the published
// JSON Schema, which carries the nearest standard keywords plus a
// description of the exact rule. TypeCompiler calls the registered check.

/**
 * UTF-8 length of a string, counted without encoding it (the protocol has
 * no TextEncoder: it is built without Node's or the DOM's types). A lone
 * surrogate counts as 3 bytes, as its U+FFFD replacement encodes.
 */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Number of Unicode code points in a string. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const NOT_BLANK = /\S/u;

const TextKind = 'MemorydText';

/** Options of a {@link Text} schema. */
export interface TextOptions {
  /** Smallest allowed size, in `unit`s. */
  min: number;
  /** Largest allowed size, in `unit`s. */
  max: number;
  unit: 'bytes' | 'codePoints';
  /** Reject strings made only of white space. */
  notBlank: boolean;
  /**
   * Text a store keeps: refuse what no backend can keep exactly, U+0000
   * and unpaired surrogates (docs/protocol.md, "Text that is stored").
   */
  stored?: boolean;
  description: string;
}

const textOptions = Symbol('memoryd.textOptions');

export interface TText extends TUnsafe<string> {
  [textOptions]: TextOptions;
}

TypeRegistry.Set<TText>(TextKind, (schema, value) => {
  if (typeof value !== 'string') return false;
  const o = schema[textOptions];
  const size = o.unit === 'bytes' ? utf8Bytes(value) : codePoints(value);
  if (size < o.min || size > o.max) return false;
  if (o.stored === true && unstorable(value) !== undefined) return false;
  return !o.notBlank || NOT_BLANK.test(value);
});

/**
 * Why `text` cannot be stored exactly, or undefined when it can: U+0000,
 * which PostgreSQL's text cannot hold, and an unpaired surrogate, which is
 * not Unicode and which UTF-8 (both stores' encoding) turns into U+FFFD.
 */
export function unstorable(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return `must not contain U+0000 (NUL), found at character ${i}`;
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return `must be well-formed Unicode: an unpaired surrogate (U+${c.toString(16).toUpperCase()}) at character ${i} cannot be stored`;
  }
  return undefined;
}

/**
 * A string measured in UTF-8 bytes or code points. Its JSON Schema shows
 * `type: "string"` with `minLength` and `maxLength` (which JSON Schema
 * counts in characters, i.e. code points: exactly a code-point rule, and
 * never stricter than a byte rule, a code point being 1-4 bytes) and the
 * rule in words.
 */
export function Text(options: TextOptions): TText {
  const schema = Type.Unsafe<string>({
    [Kind]: TextKind,
    type: 'string',
    minLength: options.min,
    maxLength: options.max,
    ...(options.notBlank ? { pattern: '\\S' } : {}),
    description: options.description,
  }) as TText;
  // A symbol key: copied by Type.Optional's spread, never serialised.
  schema[textOptions] = options;
  return schema;
}

/** Why `value` fails a {@link Text} schema, in words. */
export function textRule(schema: TSchema, value?: unknown): string | undefined {
  const o = (schema as Partial<TText>)[textOptions];
  if (o === undefined) return undefined;
  if (o.stored === true && typeof value === 'string') {
    const why = unstorable(value);
    if (why !== undefined) return why;
  }
  const unit = o.unit === 'bytes' ? 'bytes of UTF-8' : 'characters';
  const blank = o.notBlank ? ', not only white space' : '';
  return `must be a string of ${o.min} to ${o.max} ${unit}${blank}`;
}

const StateKind = 'MemorydState';

const stateOptions = Symbol('memoryd.stateOptions');

export interface StateOptions {
  maxBytes: number;
  maxDepth: number;
  description: string;
}

export interface TState extends TUnsafe<Record<string, unknown>> {
  [stateOptions]: StateOptions;
}

/** Depth of nested objects and arrays; a scalar is 0, `{}` is 1. */
export function jsonDepth(value: unknown, limit: number): number {
  // Iterative, so a hostile 10,000-deep value cannot overflow the stack.
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return max;
}

TypeRegistry.Set<TState>(StateKind, (schema, value) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const o = schema[stateOptions];
  if (jsonDepth(value, o.maxDepth) > o.maxDepth) return false;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return false;
  }
  return json !== undefined && utf8Bytes(json) <= o.maxBytes;
});

/** A JSON object bounded in UTF-8 JSON size and nesting depth. */
export function State(options: StateOptions): TState {
  const schema = Type.Unsafe<Record<string, unknown>>({
    [Kind]: StateKind,
    type: 'object',
    description: options.description,
  }) as TState;
  schema[stateOptions] = options;
  return schema;
}

/** Why a value fails a {@link State} schema, in words. */
export function stateRule(schema: TSchema): string | undefined {
  const o = (schema as Partial<TState>)[stateOptions];
  if (o === undefined) return undefined;
  return `must be a JSON object of at most ${o.maxBytes} bytes as UTF-8 JSON, nested at most ${o.maxDepth} levels`;
}
