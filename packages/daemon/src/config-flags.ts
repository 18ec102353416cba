import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DaemonError, DaemonErrorCodes } from './errors.js';

/** memoryd's flags as node:util's parseArgs reads them (config.ts's HELP says what each does). */
export const OPTIONS = {
  socket: { type: 'string' },
  'data-dir': { type: 'string' },
  'no-sync': { type: 'boolean' },
  'log-level': { type: 'string' },
  'max-connections': { type: 'string' },
  'export-cursor-ttl': { type: 'string' },
  'index-memory': { type: 'string' },
  store: { type: 'string' },
  'pg-url-file': { type: 'string' },
  'pg-connect-timeout': { type: 'string' },
  'pg-statement-timeout': { type: 'string' },
  'pg-lock-timeout': { type: 'string' },
  embedder: { type: 'string' },
  'embed-url': { type: 'string' },
  'embed-model': { type: 'string' },
  'embed-key-file': { type: 'string' },
  'fetch-model': { type: 'boolean' },
  verify: { type: 'boolean' },
  repair: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** A usage error (exit 2): `message` is one line, to which bin/main.ts adds where the help is. */
export function usage(message: string, cause?: unknown): DaemonError {
  return new DaemonError(DaemonErrorCodes.Usage, message, { cause });
}

/** The flags given in `argv`, by name. Throws a usage error naming the first one that is wrong. */
export function readFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    // node:util's own words stand only where ours name nothing (its first line: a usage error is one).
    throw usage(flagProblem(argv) ?? String((err as Error).message).split('\n', 1)[0]!, err);
  }
}

/** The flags {@link readFlags} found. */
export type Flags = ReturnType<typeof readFlags>;

/**
 * What is wrong in `argv`, as one sentence: an argument that is no flag,
 * an unknown flag, a value missing or given to a switch. Said here rather
 * than in node:util's words, which can run to three lines or leave a quote
 * unclosed (`as in '-- "--x"`). The lenient parse's tokens say which flag
 * it is (the strict one's error does not); undefined when none is wrong.
 * The wording is memoryctl's (packages/cli/src/args.ts).
 */
function flagProblem(argv: readonly string[]): string | undefined {
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'positional') return `unexpected argument ${JSON.stringify(t.value)}: memoryd takes options only`;
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(OPTIONS, t.name) ? OPTIONS[t.name as keyof typeof OPTIONS] : undefined;
    if (spec === undefined) return `unknown option ${typedOption(argv[t.index]!, t.rawName)}`;
    if (spec.type === 'boolean' && t.inlineValue === true) return `${t.rawName} takes no value`;
    if (spec.type === 'string' && t.value === undefined) return `${t.rawName} needs a value`;
    if (spec.type === 'string' && t.inlineValue === false && t.value!.startsWith('-')) {
      return `${t.rawName} needs a value (one that starts with - is written ${t.rawName}=${t.value})`;
    }
  }
  return undefined;
}

/** The unknown option as typed: `-bogus` is one mistyped word, not the short options -b -o -g -u -s. */
function typedOption(word: string, rawName: string): string {
  return word.startsWith('-') && !word.startsWith('--') && word.length > 2 ? word.split('=', 1)[0]! : rawName;
}
