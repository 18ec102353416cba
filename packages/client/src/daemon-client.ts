import type { Socket } from 'node:net';
import { DaemonHello, type MethodDescriptor, type ParamsOf, PROTOCOL_VERSION, type ResultOf, validate } from '@memoryd/protocol';
import { autostartMayHelp, closedWhileConnecting, DIAL_TIMEOUT_MS, dialWithAutostart } from './autostart.js';
import { Connection, dial } from './connection.js';
import { protocolMismatch, reason, unavailable, unsupported } from './errors.js';
import { neededCapabilities } from './needed-capability.js';
import { locateMemoryd } from './locate-memoryd.js';
import { currentUid, resolveSocketTarget, type SocketTarget, socketRefusal } from './socket-target.js';

/**
 * The protocol versions this client speaks. A daemon announcing another is
 * refused with ProtocolMismatch at every connect (so a restarted daemon is
 * picked up); within a version, skew is handled by capabilities.
 */
export const SPOKEN_PROTOCOL_VERSIONS: readonly number[] = [PROTOCOL_VERSION];

/** What `daemon.hello` answers: version, protocol version, capabilities, pid, start time. */
export type DaemonHelloResult = ResultOf<typeof DaemonHello>;

/** Default bound of one request, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default bound of the wait for an autostarted daemon (docs/architecture.md "Connecting and autostart": 5 s). */
export const DEFAULT_START_TIMEOUT_MS = 5_000;

/** Options of {@link DaemonClient}; every one may be left out. */
export interface DaemonClientOptions {
  /**
   * The socket to connect to. Default: MEMORYD_SOCKET from `env`, else
   * protocol's `defaultSocketPath(env, uid)`. Both the option and
   * MEMORYD_SOCKET are explicit choices whose directory is not checked;
   * the default one's directory must be ours and closed to others.
   */
  socket?: string;
  /** Given to an autostarted daemon as `--data-dir` (only when set; MEMORYD_DATA_DIR in `env` also counts). */
  dataDir?: string;
  /** Start memoryd when no daemon answers (default true). */
  autostart?: boolean;
  /**
   * The JS entry of memoryd, run with `process.execPath`. Default: env
   * MEMORYD_BIN, else the release's own `bin/memoryd.js`, else the first
   * `node_modules/.bin/memoryd` found walking up from this package's own
   * files (symlink resolved), else `memoryd` on PATH, run directly
   * (see {@link locateMemoryd}).
   */
  memorydBin?: string;
  /** Bound of each request in milliseconds (default 30000); `call` may override it. */
  requestTimeoutMs?: number;
  /** Bound of the wait for an autostarted daemon in milliseconds (default 5000). */
  startTimeoutMs?: number;
  /** Sent as `client` in `daemon.hello` (the daemon logs it). */
  clientName?: string;
  /** Sent as `clientVersion` in `daemon.hello`. */
  clientVersion?: string;
  /** Environment for socket and binary resolution and for an autostarted daemon (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Options of one {@link DaemonClient.call}. */
export interface CallOptions {
  /** Bound of this request in milliseconds, instead of the client's `requestTimeoutMs`. */
  timeoutMs?: number;
}

/**
 * A connection to the memory daemon with typed calls. It connects on first
 * use (or {@link connect}), starting memoryd detached when none answers and
 * autostart is allowed (docs/architecture.md "Connecting and autostart"),
 * and greets it with `daemon.hello`. When the daemon goes away, waiting
 * calls fail with ConnectionLost and the next call connects again; no
 * request is ever retried, since not every write is idempotent. Errors are
 * {@link ClientError}s. It never writes to stdout.
 */
export class DaemonClient {
  /** The socket this client connects to, resolved at construction. */
  readonly socketPath: string;
  private readonly target: SocketTarget;
  private readonly env: NodeJS.ProcessEnv;
  private readonly options: DaemonClientOptions;
  private readonly requestTimeoutMs: number;
  private conn: Connection | undefined;
  /** The connection still saying hello, so close() can cut it short. */
  private greeting: Connection | undefined;
  private connecting: Promise<DaemonHelloResult> | undefined;
  private lastHello: DaemonHelloResult | undefined;
  /** Bumped by close(): an attempt begun before it must not leave a connection open. */
  private generation = 0;

  constructor(options: DaemonClientOptions = {}) {
    this.options = { ...options };
    this.env = options.env ?? process.env;
    this.target = resolveSocketTarget(options.socket, this.env, currentUid());
    this.socketPath = this.target.path;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** The daemon's `daemon.hello` answer from the last successful connect, kept after a disconnect. */
  get hello(): DaemonHelloResult | undefined {
    return this.lastHello;
  }

  /** True when connected and the daemon announced `name`; a client must not assume what was not announced. */
  hasCapability(name: string): boolean {
    return this.isConnected() && this.lastHello !== undefined && this.lastHello.capabilities.includes(name);
  }

  /**
   * Connects (autostarting when allowed) and says hello; resolves with the
   * daemon's answer. Idempotent: when connected it resolves at once, and
   * concurrent calls share one attempt. Rejects with Unavailable when no
   * daemon answers or the default socket directory is unsafe (then nothing
   * is started and nothing changed); with Rpc, Timeout or ConnectionLost
   * when the hello itself fails.
   */
  connect(): Promise<DaemonHelloResult> {
    if (this.isConnected() && this.lastHello !== undefined) return Promise.resolve(this.lastHello);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Calls one RPC method and resolves with its result. Connects first when
   * not connected, so the call after a daemon restart reconnects. Rejects
   * with a ClientError: Rpc for the daemon's JSON-RPC error (`rpcCode`,
   * `data`), Timeout, ConnectionLost, Unavailable from the connect, or
   * Unsupported, sending nothing, for what the daemon does not announce
   * (needed-capability.ts).
   */
  async call<M extends MethodDescriptor>(m: M, params: ParamsOf<M>, opts: CallOptions = {}): Promise<ResultOf<M>> {
    if (!this.isConnected()) await this.connect();
    const conn = this.conn;
    if (conn === undefined) throw closedWhileConnecting();
    // What an older daemon would ignore is refused here, before anything is sent.
    const hello = this.lastHello;
    if (hello !== undefined) {
      const missing = neededCapabilities(m.method, params).find((need) => !hello.capabilities.includes(need.capability));
      if (missing !== undefined) throw unsupported(this.socketPath, hello.daemonVersion, missing.capability, missing.what);
    }
    return (await conn.request(m.method, params, opts.timeoutMs ?? this.requestTimeoutMs)) as ResultOf<M>;
  }

  /**
   * Ends the connection; waiting calls fail with ConnectionLost, as does a
   * connect in progress. A daemon this client started keeps running: it is
   * shared. A later call or connect connects again.
   */
  async close(): Promise<void> {
    this.generation += 1;
    const open = [this.conn, this.greeting].filter((c): c is Connection => c !== undefined);
    this.conn = undefined;
    await Promise.all(open.map((c) => c.close()));
    // An autostart wait notices the new generation within one poll.
    await this.connecting?.catch(() => undefined);
  }

  private isConnected(): boolean {
    return this.conn !== undefined && this.conn.isOpen;
  }

  private async open(): Promise<DaemonHelloResult> {
    const generation = this.generation;
    const socket = await this.reach(generation);
    if (generation !== this.generation) {
      socket.destroy();
      throw closedWhileConnecting();
    }
    const conn = new Connection(
      socket,
      this.socketPath,
      () => {
        if (this.conn === conn) this.conn = undefined;
      },
    );
    this.greeting = conn;
    try {
      const params = {
        ...(this.options.clientName === undefined ? {} : { client: this.options.clientName }),
        ...(this.options.clientVersion === undefined ? {} : { clientVersion: this.options.clientVersion }),
      };
      const answer = await conn.request(DaemonHello.method, params, this.requestTimeoutMs);
      // The version first, whatever else the answer holds: another protocol's hello may differ in any field.
      const version = (answer as { protocolVersion?: unknown } | null)?.protocolVersion;
      if (typeof version === 'number' && Number.isInteger(version) && !SPOKEN_PROTOCOL_VERSIONS.includes(version)) {
        throw protocolMismatch(this.socketPath, version, SPOKEN_PROTOCOL_VERSIONS, this.options.clientName);
      }
      const checked = validate(DaemonHello.result, answer, 'result');
      if (!checked.ok) {
        throw unavailable(
          this.socketPath,
          reason(`daemon.hello answered an unexpected result: ${checked.error.field} ${checked.error.reason}`),
        );
      }
      if (generation !== this.generation) throw closedWhileConnecting();
      this.conn = conn;
      this.lastHello = checked.value;
      return checked.value;
    } catch (err) {
      await conn.close();
      throw err;
    } finally {
      if (this.greeting === conn) this.greeting = undefined;
    }
  }

  /** A connected socket: refuses an unsafe default socket dir, then dials, then autostarts. */
  private async reach(generation: number): Promise<Socket> {
    const refusal = await socketRefusal(this.target, currentUid());
    if (refusal !== undefined) throw unavailable(this.socketPath, refusal);
    try {
      return await dial(this.socketPath, DIAL_TIMEOUT_MS);
    } catch (err) {
      if (this.options.autostart === false || !autostartMayHelp(err)) throw unavailable(this.socketPath, asError(err));
      return dialWithAutostart({
        socketPath: this.socketPath,
        dataDir: this.options.dataDir ?? (this.env['MEMORYD_DATA_DIR'] || undefined),
        command: locateMemoryd(this.options.memorydBin, this.env),
        env: this.env,
        startTimeoutMs: this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
        stillWanted: () => generation === this.generation,
      });
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
