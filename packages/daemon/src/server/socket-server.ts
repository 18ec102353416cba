import { type FSWatcher, watch } from 'node:fs';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { basename, dirname } from 'node:path';
import { ErrorCodes, Limits } from '@memoryd/protocol';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import type { Logger } from '../logger.js';
import { makeDirs } from '../make-dirs.js';
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
  /** The listening server; replaced when the socket file it bound is deleted and bound again. */
  private server: Server;
  /** Servers whose socket file was deleted, unreachable: closed with the daemon. */
  private readonly retired: Server[] = [];
  /** Watches the bound socket's directory, so a deleted socket file is bound again. */
  private watcher: FSWatcher | undefined;
  private rebinding: Promise<void> | undefined;
  private closing = false;
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
    this.server = this.newServer();
  }

  private newServer(): Server {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: false }, (socket) => this.accept(socket));
    server.on('error', (err) => this.log.error('server error', { err }));
    return server;
  }

  /** Open connections. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Binds (socket 0600) or adopts the inherited fd. A socket it binds is
   * watched: when the file is deleted (a tmp cleaner), it is bound again,
   * so clients find the daemon that still runs (docs/operations.md,
   * "Troubleshooting"). An inherited socket is systemd's to keep.
   */
  async listen(target: ListenTarget): Promise<void> {
    await this.listenOn(this.server, target);
    if (!('fd' in target)) {
      this.boundPath = target.path;
      this.watchSocketFile(target.path);
    }
  }

  private async listenOn(server: Server, target: ListenTarget): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.once('error', onError);
      const done = () => {
        server.off('error', onError);
        resolve();
      };
      if ('fd' in target) {
        server.listen({ fd: target.fd }, done);
      } else {
        // Bind under a umask that leaves the socket 0600 from its first
        // moment; the chmod below makes it explicit on every platform.
        const previous = process.umask(0o177);
        try {
          server.listen(target.path, done);
        } finally {
          process.umask(previous);
        }
      }
    });
    if (!('fd' in target)) await chmod(target.path, 0o600);
  }

  /** Watches the socket's directory (inotify, FSEvents: no polling); any change to the socket's name is checked. */
  private watchSocketFile(path: string): void {
    try {
      this.watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(path)) this.checkSocketFile(path);
      });
      // The directory itself deleted: the watch ends; the check makes it again.
      this.watcher.on('error', () => this.checkSocketFile(path));
    } catch (err) {
      this.log.warn('cannot watch the socket file; if it is deleted, restart the daemon', { err });
    }
  }

  private checkSocketFile(path: string): void {
    if (this.closing || this.rebinding !== undefined) return;
    this.rebinding = lstat(path)
      .then(
        () => undefined,
        async (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT' || this.closing) return;
          await this.rebind(path);
        },
      )
      .catch((err: unknown) => this.log.error('the socket file was deleted and cannot be bound again; restart the daemon', { err, socket: path }))
      .finally(() => (this.rebinding = undefined));
  }

  /**
   * Binds the path again on a new server. The old one is left open until
   * the daemon stops, its connections going on: nothing can reach it any
   * more, and closing it now would unlink the path (libuv removes the
   * name a pipe bound when it closes), the new socket's.
   */
  private async rebind(path: string): Promise<void> {
    await makeDirs(dirname(path), 0o700);
    const server = this.newServer();
    await this.listenOn(server, { path });
    this.retired.push(this.server);
    this.server = server;
    this.watcher?.close();
    this.watchSocketFile(path);
    this.log.warn('the socket file was deleted; it is bound again', { socket: path });
  }

  /**
   * Stops accepting, removes the socket file we bound, lets every started
   * request answer, then closes the connections.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.watcher?.close();
    await this.rebinding;
    this.refusals.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const old of this.retired) old.close();
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
