import type { TSchema } from '@sinclair/typebox';

/** A JSON Schema object as published in `tools/list`: plain JSON, root `type: "object"`. */
export interface JsonSchemaObject {
  [key: string]: unknown;
  type: 'object';
}

/**
 * The JSON Schema of a TypeBox object type, as plain JSON. TypeBox keeps
 * its bookkeeping under symbol keys (`[Kind]`, `[OptionalKind]`, the
 * protocol's text and state rules); a JSON round trip drops them, so what
 * is published is exactly what a client receives. TypeBox emits no
 * `$schema`, and the protocol primitives use `pattern`, never `format`
 * (strict clients differ on dialects and formats; a test pins both).
 */
export function publishSchema(schema: TSchema): JsonSchemaObject {
  const json = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  if (json['type'] !== 'object') throw new Error('a published tool schema must have type "object" at its root');
  return json as JsonSchemaObject;
}

/**
 * A union of object types composed explicitly as
 * `{type: "object", description, anyOf: [...]}`. TypeBox's own `Union`
 * has no root `type`, which MCP requires of an `outputSchema`.
 */
export function publishUnion(description: string, branches: readonly TSchema[]): JsonSchemaObject {
  return { type: 'object', description, anyOf: branches.map(publishSchema) };
}
