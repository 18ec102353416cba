import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { ErrorCodes, Limits } from '@memoryd/protocol';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { Logger } from '../logger.js';
import { Connection } from './connection.js';
import { LineBudget } from './line-budget.js';
import { RefusalLog } from './refusal-log.js';
import type { RpcDispatcher } from './rpc-dispatcher.js';

/** How long closing waits for peers to take their last answers. */
const CLOSE_GRACE_MS = 1_000;

/** Where to listen: a path we bind, or an fd systemd handed us. */
export type ListenTarget = { path: string } | { fd: number; path: string };

/**
 * The Unix socket server: accepts connections up to a cap (the one past it
 * gets a single -32011 error with id null and is closed), hands each to a
 * {@link Connection}, and stops gracefully.
 */
export class SocketServer {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  private readonly refusals: RefusalLog;
  private readonly lineBudget = new LineBudget(Limits.maxUnfinishedLineBytes);
  private nextId = 1;
  private boundPath: string | undefined;

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly maxConnections: number,
    private readonly log: Logger,
  ) {
    this.refusals = new RefusalLog(log, maxConnections);
    // allowHalfOpen: a client may end its side and still read the answer
    // to its last line.
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: false }, (socket) => this.accept(socket));
    this.server.on('error', (err) => this.log.error('server error', { err }));
  }

  /** Open connections. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Binds (socket 0600) or adopts the inherited fd. */
  async listen(target: ListenTarget): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      const done = () => {
        this.server.off('error', onError);
        resolve();
      };
      if ('fd' in target) {
        this.server.listen({ fd: target.fd }, done);
      } else {
        // Bind under a umask that leaves the socket 0600 from its first
        // moment; the chmod below makes it explicit on every platform.
        const previous = process.umask(0o177);
        try {
          this.server.listen(target.path, done);
        } finally {
          process.umask(previous);
        }
      }
    });
    if (!('fd' in target)) {
      this.boundPath = target.path;
      await chmod(target.path, 0o600);
    }
  }

  /**
   * Stops accepting, removes the socket file we bound, lets every started
   * request answer, then closes the connections.
   */
  async close(): Promise<void> {
    this.refusals.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.boundPath !== undefined) {
      // Node unlinks a Unix socket it bound when the server closes; doing it
      // here too makes it immediate. ENOENT means that already happened.
      await unlink(this.boundPath).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn('could not remove socket', { err });
      });
    }
    await Promise.all([...this.connections].map((c) => c.drain()));
    for (const c of this.connections) c.socket.end();
    // Give peers a moment to read their last answers, then cut whatever is
    // left (a peer that never reads must not hold the shutdown).
    const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
    await Promise.race([closed, grace]);
    for (const c of this.connections) c.socket.destroy();
    await closed;
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= this.maxConnections) {
      this.refusals.refused();
      const error = createJSONRPCErrorResponse(
        null,
        ErrorCodes.Overloaded,
        `Overloaded: too many connections (limit ${this.maxConnections})`,
      );
      socket.on('error', () => {});
      socket.end(JSON.stringify(error) + '\n');
      return;
    }
    const conn = new Connection(socket, this.nextId++, this.dispatcher, this.log, this.lineBudget);
    this.connections.add(conn);
    this.log.debug('connection opened', { conn: conn.id, open: this.connections.size });
    socket.once('close', () => {
      this.connections.delete(conn);
      this.log.debug('connection closed', { conn: conn.id, open: this.connections.size });
    });
  }
}
