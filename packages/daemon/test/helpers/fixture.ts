import { after, before } from 'node:test';
import { cleanupAll, type DaemonHandle, type SpawnOptions, startDaemon } from '@memoryd/test-support';
import { connect, type RpcClient } from './rpc.js';

/** One daemon and one connection shared by the tests of a file. */
export interface SharedDaemon {
  /** The daemon (valid once `before` ran). */
  readonly daemon: DaemonHandle;
  /** A connection to it (valid once `before` ran). */
  readonly client: RpcClient;
  /** Opens another connection. */
  connect(): Promise<RpcClient>;
}

/** Work a file needs done once the shared daemon runs, and before it stops. */
export interface SharedHooks {
  /** Runs after the daemon and its first connection are up. */
  setup?(shared: SharedDaemon): Promise<void>;
  /** Runs before the daemon is stopped (e.g. a last check that it still serves). */
  beforeStop?(shared: SharedDaemon): Promise<void>;
}

/**
 * Registers `before`/`after` hooks that start a daemon with `opts` and a
 * connection, then close every connection opened through it, stop the
 * daemon (SIGTERM, then SIGKILL) and remove temp dirs. One daemon per file
 * keeps the suite fast; tests use distinct agentIds so they do not meet.
 * Node 20 starts a file's root-level `before` hooks without waiting for the
 * previous one, so a file's own set-up goes in `hooks.setup`, which runs
 * strictly after the daemon is up (and `hooks.beforeStop` strictly before
 * it stops).
 */
export function useDaemon(opts: SpawnOptions = {}, hooks: SharedHooks = {}): SharedDaemon {
  let daemon: DaemonHandle | undefined;
  let client: RpcClient | undefined;
  const opened: RpcClient[] = [];
  before(async () => {
    daemon = await startDaemon(opts);
    client = await connect(daemon.socket);
    opened.push(client);
    await hooks.setup?.(shared);
  });
  after(async () => {
    try {
      if (daemon) await hooks.beforeStop?.(shared);
    } finally {
      for (const c of opened) c.socket.destroy();
      await daemon?.stop().catch(() => undefined);
      await cleanupAll();
    }
  });
  const shared: SharedDaemon = {
    get daemon() {
      if (!daemon) throw new Error('daemon not started');
      return daemon;
    },
    get client() {
      if (!client) throw new Error('daemon not started');
      return client;
    },
    connect: async () => {
      if (!daemon) throw new Error('daemon not started');
      const c = await connect(daemon.socket);
      opened.push(c);
      return c;
    },
  };
  return shared;
}
