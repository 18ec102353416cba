import { validate } from '@memoryd/protocol';
import type { Static, TObject } from '@sinclair/typebox';

/** Validated tool arguments, or the text of an `invalid arguments` error. */
export type ArgsCheck<I extends TObject> = { ok: true; value: Static<I> } | { ok: false; text: string };

/**
 * Checks a tool's arguments against its input type. The protocol's
 * `validate` compiles each schema once (TypeCompiler, cached per schema)
 * and words reasons the way the daemon does; the field is already the
 * tool's own snake_case name, because the input types are snake_case.
 * Absent arguments count as `{}`.
 */
export function checkArgs<I extends TObject>(input: I, args: Record<string, unknown> | undefined): ArgsCheck<I> {
  const value = args ?? {};
  const v = validate(input, value);
  if (v.ok) return { ok: true, value: v.value };
  let { field, reason } = v.error;
  // The daemon's root name is `params`; a tool's are its `arguments`.
  if (field === 'params') field = 'arguments';
  // A missing key fails on the key's own rule (e.g. "must be a string of
  // 1 to 16384 bytes"); say what is actually wrong.
  else if (Object.hasOwn(input.properties, field) && value[field] === undefined) reason = 'is required';
  return { ok: false, text: invalidArguments(field, reason) };
}

/** `invalid arguments: FIELD: REASON` (docs/api-stability.md "MCP tools"). */
export function invalidArguments(field: string, reason: string): string {
  return `invalid arguments: ${field}: ${reason}`;
}
