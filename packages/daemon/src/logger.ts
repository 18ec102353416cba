/**
 * Structured logs: one JSON object per line on stderr, so stdout stays free
 * and a supervisor (journald, launchd) keeps them. Levels filter by rank.
 */
export const LogLevels = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LogLevels)[number];

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

/** Serialises an error with its code, stack and cause chain. */
export function errorFields(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) out['code'] = code;
  if (err.stack !== undefined) out['stack'] = err.stack;
  if (err.cause !== undefined && depth < 5) out['cause'] = errorFields(err.cause, depth + 1);
  return out;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const rank = LogLevels.indexOf(level);
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (LogLevels.indexOf(lvl) > rank) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...fields };
    if (entry['err'] !== undefined) entry['err'] = errorFields(entry['err']);
    write(JSON.stringify(entry) + '\n');
  };
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
