import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ValueError } from '@sinclair/typebox/errors';
import type { InvalidParamsData } from './errors.js';
import type { MethodDescriptor } from './method.js';
import { CheckpointRecord, type ExportRecord, FactRecord } from './schemas/records.js';
import { stateRule, textRule } from './schemas/kinds.js';
import { timeBoundRule } from './schemas/time-bound.js';

// Each schema is compiled once per process, on first use.
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor<T extends TSchema>(schema: T): TypeCheck<T> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<T>;
}

/** The outcome of a validation: the typed value, or the first failure. */
export type Validation<T> = { ok: true; value: T } | { ok: false; error: InvalidParamsData };

/** `/records/7/content` → `records[7].content`; the root is `params`. */
export function fieldOf(path: string, root = 'params'): string {
  if (path === '' || path === '/') return root;
  // Params fields are named bare (`agentId`); nested roots keep their prefix.
  let out = root === 'params' ? '' : root;
  for (const raw of path.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

/** `"update", "delete"` for a union of string literals, else undefined. */
function literalChoices(schema: TSchema): string | undefined {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const values = anyOf.map((s) => (s as { const?: unknown }).const);
  if (!values.every((v) => typeof v === 'string')) return undefined;
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function reasonOf(error: ValueError): string {
  const rule = textRule(error.schema, error.value) ?? stateRule(error.schema) ?? timeBoundRule(error.schema);
  if (rule !== undefined) return rule;
  if (error.value === null) return 'must not be null (omit an optional field instead)';
  const choices = literalChoices(error.schema);
  if (choices !== undefined) return `must be one of ${choices}`;
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/**
 * Checks `value` against `schema`. On failure, gives the first failing
 * field as a path and the reason in words. Unknown object keys are
 * accepted: old daemons ignore params they do not know.
 */
export function validate<T extends TSchema>(schema: T, value: unknown, root = 'params'): Validation<Static<T>> {
  const check = checkerFor(schema);
  if (check.Check(value)) return { ok: true, value: value as Static<T> };
  const first = check.Errors(value).First();
  if (first === undefined) return { ok: false, error: { field: root, reason: 'is invalid' } };
  const field = fieldOf(first.path, root);
  return { ok: false, error: { field, reason: reasonOf(first) } };
}

/** Validates a method's params (absent params count as `{}`). */
export function validateParams<M extends MethodDescriptor>(
  descriptor: M,
  params: unknown,
): Validation<Static<M['params']>> {
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    return { ok: false, error: { field: 'params', reason: 'must be an object of named params' } };
  }
  return validate(descriptor.params, params ?? {});
}

/**
 * Validates one export record. The union is split on `type` first, so the
 * reason names the real field rather than "expected union value".
 */
export function validateExportRecord(value: unknown, root = 'record'): Validation<ExportRecord> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: { field: root, reason: 'must be an object' } };
  }
  const type = (value as { type?: unknown }).type;
  if (type === 'fact') return validate(FactRecord, value, root);
  if (type === 'checkpoint') return validate(CheckpointRecord, value, root);
  return { ok: false, error: { field: root === '' ? 'type' : `${root}.type`, reason: 'must be "fact" or "checkpoint"' } };
}
