import type { Static, TSchema } from '@sinclair/typebox';

/**
 * One RPC method: its literal name, the schema of its params and the schema
 * of its result. Types come from `Static<>` of these and nowhere else.
 */
export interface MethodDescriptor<
  Name extends string = string,
  Params extends TSchema = TSchema,
  Result extends TSchema = TSchema,
> {
  readonly method: Name;
  readonly params: Params;
  readonly result: Result;
  /** One line for docs: what the method does. */
  readonly summary: string;
}

/** Declares a method descriptor, keeping the literal name type. */
export function defineMethod<Name extends string, Params extends TSchema, Result extends TSchema>(
  method: Name,
  params: Params,
  result: Result,
  summary: string,
): MethodDescriptor<Name, Params, Result> {
  return Object.freeze({ method, params, result, summary });
}

/** The params type of a descriptor. */
export type ParamsOf<M extends MethodDescriptor> = Static<M['params']>;
/** The result type of a descriptor. */
export type ResultOf<M extends MethodDescriptor> = Static<M['result']>;
