import { homedir, platform as osPlatform } from 'node:os';
import { defaultDataDir, defaultSocketPath, Limits } from '@memoryd/protocol';
import { type Flags, readFlags, usage } from './config-flags.js';
import { type LogLevel, LogLevels } from './logger.js';
import { DEFAULT_EMBED_MODELS, DEFAULT_EMBED_URL, type EmbedConfig } from './embed/embed-config.js';
import { type EmbedderKind, EmbedderKinds } from './embed/embedder.js';
import { DEFAULT_PG_TIMEOUTS, type PgTimeouts } from './store/postgres/pg-connections.js';
import { DEFAULT_INDEX_MEMORY_BYTES, type StoreConfig, type StoreKind, StoreKinds } from './store/store-config.js';

/** Everything the daemon is configured by, after flags and environment. */
export interface DaemonConfig extends StoreConfig {
  /** Socket path to bind (ignored under socket activation, except for reports). */
  socket: string;
  /** True when the user chose the socket (flag or env): its directory is not second-guessed. */
  socketExplicit: boolean;
  logLevel: LogLevel;
  /** Simultaneous connections before new ones get -32011. */
  maxConnections: number;
  /** Meaning search's embedder (docs/embeddings.md); kind `none` when off. */
  embed: EmbedConfig;
}

/** Default of --index-memory, in MiB: the store's own default. */
export const DEFAULT_INDEX_MEMORY_MIB = DEFAULT_INDEX_MEMORY_BYTES / (1024 * 1024);
/** A TiB: past the memory of any machine this runs on. */
const MAX_INDEX_MEMORY_MIB = 1024 * 1024;

/** What `main` should do. */
export type Invocation =
  | { kind: 'run'; config: DaemonConfig }
  | { kind: 'verify'; dataDir: string }
  | { kind: 'repair'; dataDir: string }
  | { kind: 'fetch-model'; dataDir: string; model: string | undefined }
  | { kind: 'help' }
  | { kind: 'version' };

export const HELP = `Usage: memoryd [options]

The memoryd daemon: owns the store (LevelDB in the data dir, or a PostgreSQL
database with --store postgres) and serves JSON-RPC 2.0 (one JSON object per
line) on a Unix socket. Runs in the foreground; logs are JSON
lines on stderr. SIGTERM or SIGINT (and SIGHUP, in a terminal) stop it
gracefully.

Options (each also settable by the environment variable shown):
  --socket PATH           Unix socket to listen on                   [MEMORYD_SOCKET]
                          default: $XDG_RUNTIME_DIR/memoryd/memoryd.sock,
                          else $TMPDIR/memoryd-<uid>/memoryd.sock (TMPDIR: /tmp)
  --data-dir DIR          where the store lives (LevelDB in DIR/store) [MEMORYD_DATA_DIR]
                          default: $XDG_DATA_HOME/memoryd (~/.local/share/memoryd);
                          macOS: ~/Library/Application Support/memoryd
  --no-sync               acknowledge writes before they reach the disk: faster,
                          but a power loss may lose recent writes   [MEMORYD_NO_SYNC=1]
  --log-level LEVEL       error, warn, info or debug (default info)  [MEMORYD_LOG_LEVEL]
  --max-connections N     simultaneous connections; more get error -32011
                          (default ${Limits.defaultMaxConnections})                           [MEMORYD_MAX_CONNECTIONS]
  --export-cursor-ttl MS  idle time before an admin.export cursor expires
                          (default ${Limits.exportCursorIdleMs})                         [MEMORYD_EXPORT_CURSOR_TTL_MS]
  --index-memory MIB      what the agents' search indexes may take in memory
                          together; past it, the least recently used wait in
                          their images until searched again (default ${DEFAULT_INDEX_MEMORY_MIB})
                                                                     [MEMORYD_INDEX_MEMORY_MIB]
  --store KIND            level (LevelDB in the data dir) or postgres: a
                          PostgreSQL database, shared by every daemon that
                          points at it; where is said by the standard PG*
                          variables (PGHOST, PGDATABASE, PGUSER, ...) or by
                          --pg-url-file (default level)                [MEMORYD_STORE]
  --pg-url-file FILE      with --store postgres: read the connection URL
                          (postgresql://...) from FILE, never from the command
                          line; keep FILE private (mode 0600)     [MEMORYD_PG_URL_FILE]
  --pg-connect-timeout S  with --store postgres: seconds to wait for a
                          connection (default ${DEFAULT_PG_TIMEOUTS.connectMs / 1000})           [MEMORYD_PG_CONNECT_TIMEOUT]
  --pg-statement-timeout S  seconds one statement may run (default ${DEFAULT_PG_TIMEOUTS.statementMs / 1000})
                                                         [MEMORYD_PG_STATEMENT_TIMEOUT]
  --pg-lock-timeout S     seconds to wait for a lock: a row, a table, the
                          schema migration lock (default ${DEFAULT_PG_TIMEOUTS.lockMs / 1000})   [MEMORYD_PG_LOCK_TIMEOUT]
  --embedder KIND         meaning search: none (default: search by words only,
                          nothing leaves the machine), ollama, openai (any
                          OpenAI-compatible server) or local (an ONNX model run
                          in the daemon; see docs/embeddings.md)  [MEMORYD_EMBEDDER]
  --embed-url URL         the embedder's server (default ${DEFAULT_EMBED_URL})
                                                             [MEMORYD_EMBED_URL]
  --embed-model NAME      the model (default: ollama ${DEFAULT_EMBED_MODELS.ollama},
                          openai ${DEFAULT_EMBED_MODELS.openai}, local ${DEFAULT_EMBED_MODELS.local})
                                                           [MEMORYD_EMBED_MODEL]
  --embed-key-file FILE   the API key, on the first line of FILE (never on the
                          command line; keep FILE private)  [MEMORYD_EMBED_KEY_FILE]
  --verify                check the store instead of serving it: every record's
                          checksum, the counters, dedup entries and search index
                          against the records; prints what is damaged; exit 0
                          when nothing is, 1 otherwise (the daemon must be stopped)
  --repair                repair a damaged store instead of serving it: copies
                          the store to DATA_DIR/store.before-repair-<time> first,
                          runs LevelDB's repair if its files need it, removes
                          records that fail their checksum, rebuilds counters,
                          dedup entries and the search index, and prints what it
                          kept and removed (the daemon must be stopped)
  --fetch-model           download the local embedder's model (--embed-model, default
                          ${DEFAULT_EMBED_MODELS.local}) into DATA_DIR/models, check its
                          checksums, and exit (the daemon need not be stopped)
  -h, --help              print this help and exit
  -V, --version           print the version and exit

The daemon runs with umask 077: the data dir and store are private to you
(an existing one that others can read is tightened at start, with a warning).

Under systemd socket activation (LISTEN_FDS, LISTEN_PID) the daemon serves
the inherited socket instead of binding its own.
`;

function positiveInt(name: string, text: string, min: number): number {
  if (!/^\d+$/.test(text.trim())) throw usage(`${name} must be a whole number, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw usage(`${name} must be at least ${min}, got ${text}`);
  return n;
}

function boundedInt(name: string, text: string, min: number, max: number): number {
  const n = positiveInt(name, text, min);
  if (n > max) throw usage(`${name} must be at most ${max}, got ${text}`);
  return n;
}

/** The PostgreSQL timeouts' flags, variables and fields. */
const PG_TIMEOUT_FLAGS = [
  ['pg-connect-timeout', 'MEMORYD_PG_CONNECT_TIMEOUT', 'connectMs'],
  ['pg-statement-timeout', 'MEMORYD_PG_STATEMENT_TIMEOUT', 'statementMs'],
  ['pg-lock-timeout', 'MEMORYD_PG_LOCK_TIMEOUT', 'lockMs'],
] as const;

/** Seconds, 0.1 to a day, as whole milliseconds. */
function seconds(name: string, text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) throw usage(`${name} must be a number of seconds, got ${JSON.stringify(text)}`);
  const s = Number(text);
  if (s < 0.1 || s > 86_400) throw usage(`${name} must be 0.1 to 86400 seconds, got ${text}`);
  return Math.round(s * 1000);
}

function truthy(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text.trim());
}

/**
 * Reads flags, then the environment, then defaults (flags win). Throws a
 * DaemonError with code Usage on anything it does not understand.
 */
export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  const flags = readFlags(argv);
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };
  const place = placeOf(flags, env);
  // Here rather than in maintenanceOf: this mistake is named before any in the store's flags.
  if (flags.verify && flags.repair) throw usage('--verify and --repair cannot be combined');
  const store = storeOf(flags, env);
  return maintenanceOf(flags, env, place.dataDir) ?? { kind: 'run', config: serveConfig(flags, env, place, store) };
}

/** Where the daemon listens and keeps its data. */
interface Place {
  socket: string;
  socketExplicit: boolean;
  dataDir: string;
}

/** The socket (the user's choice, or the default for this user) and the data dir. */
function placeOf(flags: Flags, env: NodeJS.ProcessEnv): Place {
  const socketChoice = flags.socket ?? (env['MEMORYD_SOCKET'] || undefined);
  const uid = process.getuid?.() ?? 0;
  const socket = socketChoice ?? defaultSocketPath({ XDG_RUNTIME_DIR: env['XDG_RUNTIME_DIR'], TMPDIR: env['TMPDIR'] }, uid);
  const dataDir = flags['data-dir'] ?? (env['MEMORYD_DATA_DIR'] || defaultDataDir(env, osPlatform(), env['HOME'] || homedir()));
  if (socket === '') throw usage('--socket must not be empty');
  if (dataDir === '') throw usage('--data-dir must not be empty');
  return { socket, socketExplicit: socketChoice !== undefined, dataDir };
}

/** The store backend and where it is. */
type StoreChoice = Pick<StoreConfig, 'store' | 'pgUrlFile' | 'pgTimeouts'>;

/**
 * The store backend and its PostgreSQL settings. Refused: a PostgreSQL
 * setting without --store postgres, and --verify or --repair with it.
 */
function storeOf(flags: Flags, env: NodeJS.ProcessEnv): StoreChoice {
  const kind = (flags.store ?? (env['MEMORYD_STORE'] || 'level')).trim();
  if (!(StoreKinds as readonly string[]).includes(kind)) {
    throw usage(`--store must be one of ${StoreKinds.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const store = kind as StoreKind;
  const pgUrlFile = flags['pg-url-file'] ?? (env['MEMORYD_PG_URL_FILE'] || undefined);
  if (pgUrlFile !== undefined && store !== 'postgres') throw usage('--pg-url-file needs --store postgres');
  if (pgUrlFile === '') throw usage('--pg-url-file must not be empty');
  const pgTimeouts = pgTimeoutsOf(flags, env, store);
  if (store === 'postgres' && (flags.verify || flags.repair)) {
    throw usage(`--${flags.verify ? 'verify' : 'repair'} checks a LevelDB store; a PostgreSQL database is checked and backed up with its own tools`);
  }
  return { store, pgUrlFile, pgTimeouts };
}

/** The PostgreSQL timeouts given, over the defaults; each needs --store postgres. */
function pgTimeoutsOf(flags: Flags, env: NodeJS.ProcessEnv, store: StoreKind): PgTimeouts {
  const pgTimeouts = { ...DEFAULT_PG_TIMEOUTS };
  for (const [flag, envName, field] of PG_TIMEOUT_FLAGS) {
    const text = flags[flag] ?? (env[envName] || undefined);
    if (text === undefined) continue;
    if (store !== 'postgres') throw usage(`--${flag} needs --store postgres`);
    pgTimeouts[field] = seconds(`--${flag}`, text);
  }
  return pgTimeouts;
}

/** A run over the data dir instead of serving it (--fetch-model, --verify, --repair), if one is asked for. */
function maintenanceOf(flags: Flags, env: NodeJS.ProcessEnv, dataDir: string): Invocation | undefined {
  if (flags['fetch-model']) {
    if (flags.verify || flags.repair) throw usage('--fetch-model cannot be combined with --verify or --repair');
    const model = flags['embed-model'] ?? (env['MEMORYD_EMBED_MODEL'] || undefined);
    return { kind: 'fetch-model', dataDir, model: model?.trim() };
  }
  if (flags.verify) return { kind: 'verify', dataDir };
  if (flags.repair) return { kind: 'repair', dataDir };
  return undefined;
}

/** The serving daemon's whole configuration: the place and store read already, and the rest. */
function serveConfig(flags: Flags, env: NodeJS.ProcessEnv, place: Place, store: StoreChoice): DaemonConfig {
  const logLevel = (flags['log-level'] ?? env['MEMORYD_LOG_LEVEL'] ?? 'info').trim();
  if (!(LogLevels as readonly string[]).includes(logLevel)) {
    throw usage(`--log-level must be one of ${LogLevels.join(', ')}, got ${JSON.stringify(logLevel)}`);
  }
  if (store.store === 'postgres') refuseLevelOnly(flags, env);
  const embed = embedConfig(flags, env);
  return {
    ...place,
    sync: !(flags['no-sync'] === true || truthy(env['MEMORYD_NO_SYNC'])),
    logLevel: logLevel as LogLevel,
    ...limitsOf(flags, env),
    ...store,
    embed,
  };
}

/** The connection cap, the export cursors' idle time and the search indexes' memory, each a whole number. */
function limitsOf(flags: Flags, env: NodeJS.ProcessEnv): Pick<DaemonConfig, 'maxConnections' | 'exportCursorTtlMs' | 'indexMemoryBytes'> {
  const maxConnText = flags['max-connections'] ?? env['MEMORYD_MAX_CONNECTIONS'];
  const ttlText = flags['export-cursor-ttl'] ?? env['MEMORYD_EXPORT_CURSOR_TTL_MS'];
  const indexMemoryText = flags['index-memory'] ?? env['MEMORYD_INDEX_MEMORY_MIB'];
  return {
    maxConnections: maxConnText === undefined ? Limits.defaultMaxConnections : positiveInt('--max-connections', maxConnText, 1),
    exportCursorTtlMs: ttlText === undefined ? Limits.exportCursorIdleMs : positiveInt('--export-cursor-ttl', ttlText, 1),
    indexMemoryBytes: 1024 * 1024 * (indexMemoryText === undefined ? DEFAULT_INDEX_MEMORY_MIB : boundedInt('--index-memory', indexMemoryText, 1, MAX_INDEX_MEMORY_MIB)),
  };
}

/** The embedder's settings; an embedding flag without an embedder is a usage error (it would do nothing). */
function embedConfig(v: Flags, env: NodeJS.ProcessEnv): EmbedConfig {
  const kind = (v.embedder ?? (env['MEMORYD_EMBEDDER'] || 'none')).trim();
  if (!(EmbedderKinds as readonly string[]).includes(kind)) {
    throw usage(`--embedder must be one of ${EmbedderKinds.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const url = v['embed-url'] ?? (env['MEMORYD_EMBED_URL'] || undefined);
  const model = v['embed-model'] ?? (env['MEMORYD_EMBED_MODEL'] || undefined);
  const keyFile = v['embed-key-file'] ?? (env['MEMORYD_EMBED_KEY_FILE'] || undefined);
  if (kind === 'none') {
    const given = [v['embed-url'] && '--embed-url', v['embed-model'] && '--embed-model', v['embed-key-file'] && '--embed-key-file'].find(Boolean);
    if (given) throw usage(`${given} needs --embedder ollama, openai or local`);
    return { kind: 'none', url: DEFAULT_EMBED_URL, model: '', keyFile: undefined };
  }
  if (url !== undefined) {
    let parsedUrl: URL | undefined;
    try {
      parsedUrl = new URL(url);
    } catch {
      parsedUrl = undefined;
    }
    if (parsedUrl === undefined || !/^https?:$/.test(parsedUrl.protocol)) throw usage(`--embed-url must be an http:// or https:// URL, got ${JSON.stringify(url)}`);
  }
  if (model !== undefined && model.trim() === '') throw usage('--embed-model must not be empty');
  if (keyFile === '') throw usage('--embed-key-file must not be empty');
  if (keyFile !== undefined && kind !== 'openai') throw usage(`--embed-key-file is for --embedder openai (${kind} takes no key)`);
  const k = kind as Exclude<EmbedderKind, 'none'>;
  return { kind: k, url: url ?? DEFAULT_EMBED_URL, model: model?.trim() ?? DEFAULT_EMBED_MODELS[k], keyFile };
}

/**
 * The LevelDB engine's flags and variables mean nothing on PostgreSQL: a
 * user who gives one with --store postgres expects an effect they would
 * not get, so it is a usage error naming it (issue 29).
 */
function refuseLevelOnly(v: Flags, env: NodeJS.ProcessEnv): void {
  const given = v['no-sync'] === true ? '--no-sync' : truthy(env['MEMORYD_NO_SYNC']) ? 'MEMORYD_NO_SYNC' : undefined;
  if (given !== undefined) throw usage(`${given} is for the LevelDB store; it does nothing with --store postgres, whose durability and memory are the server's`);
}
