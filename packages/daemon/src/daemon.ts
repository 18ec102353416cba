import { isatty } from 'node:tty';
import type { DaemonConfig } from './config.js';
import { DaemonError, DaemonErrorCodes } from './errors.js';
import type { Logger } from './logger.js';
import { type DaemonContext, daemonMethods } from './methods.js';
import { RpcDispatcher } from './server/rpc-dispatcher.js';
import { inheritedSocketPath, takeActivationFd } from './server/socket-activation.js';
import { claimSocketPath, prepareSocketDir } from './server/socket-file.js';
import { claimSocketLock, type SocketLock } from './server/socket-lock.js';
import { type ListenTarget, SocketServer } from './server/socket-server.js';
import type { MemoryStore } from './store/memory-store.js';
import { openConfiguredStore } from './store/open-configured.js';
import type { Embedder } from './embed/embedder.js';
import { Embeddings } from './embed/embeddings.js';
import { openEmbedder } from './embed/open-embedder.js';
import { DAEMON_VERSION } from './version.js';

/** docs/operations.md "Stopping": a stopping daemon exits within 5 s; we give ourselves 4.5. */
const STOP_DEADLINE_MS = 4_500;

/** A running daemon. */
export interface RunningDaemon {
  /** The socket path served (under activation: the inherited socket's, read from the kernel). */
  readonly socket: string;
  /** Stops gracefully; resolves once the store is closed. Idempotent. */
  stop(reason: string): Promise<void>;
  /** Resolves when the daemon has stopped (by stop(), daemon.shutdown or a signal). */
  readonly stopped: Promise<void>;
}

/**
 * Starts a daemon: takes the socket's lock first (so of two racing
 * daemons the loser finds out before touching the store), then opens the
 * embedder and the store, then claims the socket (replacing a stale file,
 * refusing a live one) and serves. Failures are DaemonErrors whose message
 * is the one-line reason.
 */
export async function startDaemon(config: DaemonConfig, log: Logger): Promise<RunningDaemon> {
  const target = listenTarget(config, log);
  if (!('fd' in target)) await prepareSocketDir(target.path, config.socketExplicit);
  // The socket first, the store after: of daemons racing for one socket, the losers touch no store.
  const socketLock = await claimSocketLock(target.path);
  const { embedder, store } = await openBackends(config, log, socketLock);
  const embeddings = embedder === undefined ? undefined : new Embeddings({ embedder, store: store.vectors(), logger: log });
  const held: Held = { store, embeddings, socketLock, server: undefined };
  const { stop, stopped } = stopper(held, log);
  await serve(held, target, config, log, stop);
  embeddings?.start();
  logListening(log, target, config, embedder);
  return { socket: target.path, stop, stopped };
}

/** What a started daemon holds until it stops. */
interface Held {
  readonly store: MemoryStore;
  readonly embeddings: Embeddings | undefined;
  readonly socketLock: SocketLock;
  /** Set by {@link serve} once built. */
  server: SocketServer | undefined;
}

/** The socket to serve: the inherited one under socket activation, else the configured path. */
function listenTarget(config: DaemonConfig, log: Logger): ListenTarget {
  const activationFd = takeActivationFd(process.env, process.pid);
  if (activationFd === undefined) return { path: config.socket };
  // Under activation the socket served is the inherited one, wherever the configuration would bind its own.
  const inherited = inheritedSocketPath(activationFd);
  if (inherited === undefined) {
    log.warn('cannot read the path of the inherited socket; reporting the configured one', { socket: config.socket });
  }
  return { fd: activationFd, path: inherited ?? config.socket };
}

/** Opens the embedder, then the store; on failure closes what was opened and lets the socket's lock go. */
async function openBackends(
  config: DaemonConfig,
  log: Logger,
  socketLock: SocketLock,
): Promise<{ embedder: Embedder | undefined; store: MemoryStore }> {
  let embedder: Embedder | undefined;
  try {
    // Before the store: a bad key file is a usage error, found before anything is opened.
    embedder = await openEmbedder(config.embed, config.dataDir, log);
    return { embedder, store: await openConfiguredStore(config, log) };
  } catch (err) {
    await embedder?.close().catch((closeErr: unknown) => log.warn('closing the embedder failed', { err: closeErr }));
    await socketLock.release().catch((releaseErr: unknown) => log.warn('releasing the socket lock failed', { err: releaseErr }));
    throw err;
  }
}

/** The daemon's stop (run once, whoever asks) and the promise that it has stopped. */
function stopper(held: Held, log: Logger): Pick<RunningDaemon, 'stop' | 'stopped'> {
  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      log.info('stopping', { reason });
      // Meaning search's calls in flight end at once: a search waiting for a hung provider answers
      // lexically, and the queue's call is cancelled, so the store closes within the stop's bound.
      const meaning = held.embeddings?.close().catch((err: unknown) => log.warn('stopping meaning search failed', { err }));
      try {
        await held.server?.close();
      } finally {
        await meaning;
        await held.store.close();
        // After the socket is gone: until then, another daemon must not claim it.
        await held.socketLock.release().catch((err: unknown) => log.warn('releasing the socket lock failed', { err }));
        log.info('stopped', { reason });
        resolveStopped();
      }
    })();
    return stopping;
  };
  return { stop, stopped };
}

/** Claims the socket and listens on it; on failure closes what is held and throws the one-line reason. */
async function serve(held: Held, target: ListenTarget, config: DaemonConfig, log: Logger, stop: RunningDaemon['stop']): Promise<void> {
  const ctx: DaemonContext = {
    pid: process.pid,
    startedAt: new Date(),
    socket: target.path,
    dataDir: config.dataDir,
    store: config.store,
    connectionCount: () => held.server?.connectionCount ?? 0,
    // After the current response is written: microtasks run first.
    requestShutdown: (reason: string) => setImmediate(() => void stop(reason)),
  };
  try {
    if (!('fd' in target)) await claimSocketPath(target.path);
    const dispatcher = new RpcDispatcher(daemonMethods(held.store, ctx, held.embeddings), log);
    held.server = new SocketServer(dispatcher, config.maxConnections, log);
    await held.server.listen(target);
  } catch (err) {
    await held.embeddings?.close().catch(() => {});
    await held.store.close().catch((closeErr: unknown) => log.warn('closing the store failed', { err: closeErr }));
    await held.socketLock.release().catch((releaseErr: unknown) => log.warn('releasing the socket lock failed', { err: releaseErr }));
    throw socketError(err, target.path);
  }
}

/** A failure to claim or listen on the socket, as a DaemonError (one already is kept). */
function socketError(err: unknown, socketPath: string): DaemonError {
  if (err instanceof DaemonError) return err;
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new DaemonError(DaemonErrorCodes.SocketInUse, `socket ${socketPath} is already in use`, { cause: err });
  }
  return new DaemonError(DaemonErrorCodes.SocketPath, `cannot listen on ${socketPath}: ${(err as Error).message}`, { cause: err });
}

/** The start's one info line: what is served, where, and how. */
function logListening(log: Logger, target: ListenTarget, config: DaemonConfig, embedder: Embedder | undefined): void {
  log.info('listening', {
    version: DAEMON_VERSION,
    socket: target.path,
    activated: 'fd' in target,
    dataDir: config.dataDir,
    store: config.store,
    sync: config.sync,
    pid: process.pid,
    ...(embedder === undefined ? {} : { embedder: embedder.kind, embedModel: embedder.model }),
  });
}

/**
 * Stops on SIGTERM/SIGINT (and SIGHUP in a terminal). Installed before start-up begins, so a signal
 * that arrives while the daemon is still starting (it may already accept
 * connections) still ends in a graceful stop and exit 0: the stop runs as
 * soon as `started` resolves. Exits hard if the stop overruns its deadline.
 */
export function stopOnSignals(started: Promise<RunningDaemon | undefined>, log: Logger, exit: (code: number) => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    const timer = setTimeout(() => {
      log.error('graceful stop overran its deadline; exiting', { deadlineMs: STOP_DEADLINE_MS });
      exit(1);
    }, STOP_DEADLINE_MS);
    timer.unref();
    void started.then((daemon) => daemon?.stop(signal));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // A terminal that closes sends SIGHUP, whose default kills the daemon mid-write. Away from a
  // terminal (systemd, launchd, autostart) SIGHUP keeps its default: nothing sends it by accident.
  if (inTerminal()) process.once('SIGHUP', onSignal);
}

/** Whether the daemon runs in a terminal (fd 0, 1 or 2 is one), asked without opening process.stdin. */
function inTerminal(): boolean {
  return isatty(0) || isatty(1) || isatty(2);
}
