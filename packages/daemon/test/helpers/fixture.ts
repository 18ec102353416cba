import { after, before } from 'node:test';
import { cleanupAll } from './cleanup.js';
import { type DaemonHandle, type SpawnOptions, startDaemon } from './daemon.js';
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

/**
 * Registers `before`/`after` hooks that start a daemon with `opts` and a
 * connection, then close every connection opened through it, stop the
 * daemon (SIGTERM, then SIGKILL) and remove temp dirs. One daemon per file
 * keeps the suite fast; tests use distinct agentIds so they do not meet.
 */
export function useDaemon(opts: SpawnOptions = {}): SharedDaemon {
  let daemon: DaemonHandle | undefined;
  let client: RpcClient | undefined;
  const opened: RpcClient[] = [];
  before(async () => {
    daemon = await startDaemon(opts);
    client = await connect(daemon.socket);
    opened.push(client);
  });
  after(async () => {
    for (const c of opened) c.socket.destroy();
    await daemon?.stop().catch(() => undefined);
    await cleanupAll();
  });
  return {
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
}
