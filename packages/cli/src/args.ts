import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '@memoryd/client/args';
import { GLOBAL_OPTIONS } from './global-args.js';
import { didYouMean } from './suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A command's arguments: its options, and exactly `names` positionals (the last `optional` of them may be missing). */
export function commandArgs<O extends Options>(argv: string[], options: O, names: string[], optional = 0) {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(optionProblem(argv, all) ?? (err as Error).message, { cause: err });
  }
  const { positionals } = parsed;
  const values = parsed.values as Record<string, unknown>;
  if (values['help'] === true) return { help: true as const, values, positionals };
  if (positionals.length > names.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[names.length])}`);
  if (positionals.length < names.length - optional) throw new UsageError(`missing ${names[positionals.length]}`);
  return { help: false as const, values, positionals };
}

/**
 * What is wrong with the options in `argv`, as one sentence: an unknown
 * option with the one it most likely meant, a value missing or given to a
 * switch. Said here rather than in node:util's words, which name no
 * alternative and leave a quote unclosed (`as in '-- "--limt"`). The
 * lenient parse's tokens say which option it is; undefined when none is
 * wrong (then node:util's message stands).
 */
function optionProblem(argv: string[], options: Options): string | undefined {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (spec === undefined) return unknownOption(argv[t.index]!, t.rawName, options);
    if (spec.type === 'boolean' && t.inlineValue === true) return `${t.rawName} takes no value`;
    if (spec.type === 'string' && t.value === undefined) return `${t.rawName} needs a value`;
    if (spec.type === 'string' && t.inlineValue === false && t.value!.startsWith('-')) {
      return `${t.rawName} needs a value (one that starts with - is written ${t.rawName}=${t.value})`;
    }
  }
  return undefined;
}

/** `unknown option --limt; did you mean --limit?`: `typed` is the word on the command line, `raw` the option node:util saw in it. */
function unknownOption(typed: string, raw: string, options: Options): string {
  // `-limit` is one mistyped word, not the short options -l -i -m -i -t.
  const word = typed.startsWith('-') && !typed.startsWith('--') && typed.length > 2 ? typed.split('=')[0]! : raw;
  const names = [...Object.keys(options).map((name) => `--${name}`), ...GLOBAL_OPTIONS];
  const hint = didYouMean(word.replace(/^--?/, ''), names.map((n) => n.slice(2)), (n) => `--${n}`);
  return `unknown option ${word}${hint || '; text that starts with - goes after --'}`;
}

/** A whole number of at least 1 from an option, or undefined when not given. */
export function countOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${name} must be a whole number of at least 1, got ${JSON.stringify(text)}`);
  return Number(text);
}
