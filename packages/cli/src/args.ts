import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '@memoryd/client/args';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A command's arguments: its options, and exactly `names` positionals (the last `optional` of them may be missing). */
export function commandArgs<O extends Options>(argv: string[], options: O, names: string[], optional = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { positionals } = parsed;
  const values = parsed.values as Record<string, unknown>;
  if (values['help'] === true) return { help: true as const, values, positionals };
  if (positionals.length > names.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[names.length])}`);
  if (positionals.length < names.length - optional) throw new UsageError(`missing ${names[positionals.length]}`);
  return { help: false as const, values, positionals };
}

/** A whole number of at least 1 from an option, or undefined when not given. */
export function countOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${name} must be a whole number of at least 1, got ${JSON.stringify(text)}`);
  return Number(text);
}
