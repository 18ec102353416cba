import { isatty } from 'node:tty';
import type { DaemonConfig } from './config.js';
import { DaemonError, DaemonErrorCodes } from './errors.js';
import type { Logger } from './logger.js';
import { daemonMethods } from './methods.js';
import { RpcDispatcher } from './server/rpc-dispatcher.js';
import { inheritedSocketPath, takeActivationFd } from './server/socket-activation.js';
import { claimSocketPath, prepareSocketDir } from './server/socket-file.js';
import { claimSocketLock } from './server/socket-lock.js';
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
 * Starts a daemon: takes the data dir's lock first (so of two racing
 * daemons the loser finds out before touching the socket), then claims
 * the socket (replacing a stale file, refusing a live one), then serves.
 * Failures are DaemonErrors whose message is the one-line reason.
 */
export async function startDaemon(config: DaemonConfig, log: Logger): Promise<RunningDaemon> {
  const activationFd = takeActivationFd(process.env, process.pid);
  // Under activation the socket served is the inherited one, wherever the configuration would bind its own.
  const inherited = activationFd === undefined ? undefined : inheritedSocketPath(activationFd);
  if (activationFd !== undefined && inherited === undefined) {
    log.warn('cannot read the path of the inherited socket; reporting the configured one', { socket: config.socket });
  }
  const socketPath = inherited ?? config.socket;
  const target: ListenTarget = activationFd === undefined ? { path: socketPath } : { fd: activationFd, path: socketPath };
  if (activationFd === undefined) await prepareSocketDir(socketPath, config.socketExplicit);
  // The socket first, the store after: of daemons racing for one socket, the losers touch no store.
  const socketLock = await claimSocketLock(socketPath);

  let store: MemoryStore;
  let embedder: Embedder | undefined;
  try {
    // Before the store: a bad key file is a usage error, found before anything is opened.
    embedder = await openEmbedder(config.embed, config.dataDir, log);
    store = await openConfiguredStore(config, log);
  } catch (err) {
    await embedder?.close().catch((closeErr: unknown) => log.warn('closing the embedder failed', { err: closeErr }));
    await socketLock.release().catch((releaseErr: unknown) => log.warn('releasing the socket lock failed', { err: releaseErr }));
    throw err;
  }
  const embeddings = embedder === undefined ? undefined : new Embeddings({ embedder, store: store.vectors(), logger: log });

  let server: SocketServer | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      log.info('stopping', { reason });
      // Meaning search's calls in flight end at once: a search waiting for a hung provider answers
      // lexically, and the queue's call is cancelled, so the store closes within the stop's bound.
      const meaning = embeddings?.close().catch((err: unknown) => log.warn('stopping meaning search failed', { err }));
      try {
        await server?.close();
      } finally {
        await meaning;
        await store.close();
        // After the socket is gone: until then, another daemon must not claim it.
        await socketLock.release().catch((err: unknown) => log.warn('releasing the socket lock failed', { err }));
        log.info('stopped', { reason });
        resolveStopped();
      }
    })();
    return stopping;
  };

  const startedAt = new Date();
  const ctx = {
    pid: process.pid,
    startedAt,
    socket: socketPath,
    dataDir: config.dataDir,
    connectionCount: () => server?.connectionCount ?? 0,
    // After the current response is written: microtasks run first.
    requestShutdown: (reason: string) => setImmediate(() => void stop(reason)),
  };

  try {
    if (activationFd === undefined) await claimSocketPath(socketPath);
    const dispatcher = new RpcDispatcher(daemonMethods(store, ctx, embeddings), log);
    server = new SocketServer(dispatcher, config.maxConnections, log);
    await server.listen(target);
  } catch (err) {
    await embeddings?.close().catch(() => {});
    await store.close().catch((closeErr: unknown) => log.warn('closing the store failed', { err: closeErr }));
    await socketLock.release().catch((releaseErr: unknown) => log.warn('releasing the socket lock failed', { err: releaseErr }));
    if (err instanceof DaemonError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new DaemonError(DaemonErrorCodes.SocketInUse, `socket ${socketPath} is already in use`, { cause: err });
    }
    throw new DaemonError(DaemonErrorCodes.SocketPath, `cannot listen on ${socketPath}: ${(err as Error).message}`, {
      cause: err,
    });
  }

  embeddings?.start();
  log.info('listening', {
    version: DAEMON_VERSION,
    socket: socketPath,
    activated: activationFd !== undefined,
    dataDir: config.dataDir,
    store: config.store,
    sync: config.sync,
    pid: process.pid,
    ...(embedder === undefined ? {} : { embedder: embedder.kind, embedModel: embedder.model }),
  });
  return { socket: socketPath, stop, stopped };
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
