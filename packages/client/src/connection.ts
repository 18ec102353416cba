import { createConnection, type Socket } from 'node:net';
import { createJSONRPCErrorResponse, isJSONRPCResponse, JSONRPCClient, type JSONRPCResponse } from 'json-rpc-2.0';
import { LineSplitter, MAX_LINE_BYTES } from '@memoryd/protocol';
import { ClientError, ClientErrorCodes, reason } from './errors.js';

/** A request waiting for its answer. */
interface Pending {
  method: string;
  reject: (err: ClientError) => void;
  timer: NodeJS.Timeout;
}

/**
 * Opens a Unix socket connection. Rejects with the socket's own error
 * (`err.code` ENOENT, ECONNREFUSED, ...) so the caller can decide whether
 * autostart may help, or with a plain Error after `timeoutMs` (a listener
 * whose accept queue is full may never answer).
 */
export function dial(socketPath: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(reason(`connect ${socketPath}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/**
 * One NDJSON connection to the daemon: each request is one JSON line out,
 * each answer one JSON line in. json-rpc-2.0's `JSONRPCClient` matches
 * answers to requests by id; this class adds what it lacks for a socket:
 * framing with the 8 MiB line limit, a timeout per request, and failing
 * every waiting request when the connection closes. Requests are never
 * retried (not every write is idempotent). It never writes to stdout.
 */
export class Connection {
  private readonly rpc: JSONRPCClient<string>;
  private readonly pending = new Map<number, Pending>();
  // The protocol's NDJSON framing; lines decode as UTF-8 without a copy.
  private readonly splitter = new LineSplitter((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'));
  private lastId = 0;
  private socketError: Error | undefined;
  private failure: Error | undefined;
  private isClosed = false;
  private resolveClosed!: () => void;
  /** Resolves once the socket has closed and every waiting request has failed. */
  readonly closed: Promise<void>;

  /**
   * Takes over a connected socket. `onClose` runs once, when it closes
   * for any reason (the daemon went away, a broken stream, {@link close}).
   */
  constructor(
    private readonly socket: Socket,
    private readonly socketPath: string,
    onClose: () => void,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    // send: writes the line request() serialized (passed as clientParams,
    // so a 1 MiB state is stringified once). Never throws: requests are only
    // sent while open, and a write that fails surfaces as 'error'/'close'.
    // Writes are not paced: the daemon reads while it answers, and Node
    // buffers what the socket has not taken yet.
    this.rpc = new JSONRPCClient<string>((_payload: unknown, line: string) => {
      socket.write(line);
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => (this.socketError = err));
    socket.once('close', () => {
      this.isClosed = true;
      const cause = this.failure ?? this.socketError;
      this.failAll((method) => this.lost(method, cause));
      this.resolveClosed();
      onClose();
    });
  }

  /** True until the socket closes (or starts closing). */
  get isOpen(): boolean {
    return !this.isClosed && !this.socket.destroyed;
  }

  /**
   * Sends one request and resolves with its result. Rejects with a
   * ClientError: Rpc (the daemon's JSON-RPC error), Timeout (no answer in
   * `timeoutMs`; a late answer is dropped) or ConnectionLost. Params that
   * JSON cannot encode (a BigInt, a cycle) are the caller's bug: that
   * rejects with JSON.stringify's own TypeError, and nothing is sent.
   */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (!this.isOpen) return Promise.reject(this.lost(method, this.failure ?? this.socketError));
    const id = ++this.lastId;
    const request = { jsonrpc: '2.0' as const, id, method, params };
    let line: string;
    try {
      line = `${JSON.stringify(request)}\n`;
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.take(id)) return;
        const message = `memoryd at ${this.socketPath} did not answer ${method} within ${timeoutMs} ms`;
        reject(new ClientError(ClientErrorCodes.Timeout, message));
        // Frees JSONRPCClient's own entry for the id; its promise is
        // already settled for our caller, so this answer goes nowhere.
        this.rpc.receive(createJSONRPCErrorResponse(id, 0, 'abandoned after timeout'));
      }, timeoutMs);
      this.pending.set(id, { method, reject, timer });
      const answered = this.rpc.requestAdvanced(request, line);
      answered.then(
        (response: JSONRPCResponse) => {
          if (!this.take(id)) return; // timed out or failed with the connection
          if (response.error) reject(rpcError(response.error));
          else resolve(response.result);
        },
        // Not expected (send never throws), but never leave a caller hanging.
        (err: unknown) => {
          if (this.take(id)) reject(this.lost(method, err));
        },
      );
    });
  }

  /** Closes the socket; every waiting request fails with ConnectionLost. */
  close(): Promise<void> {
    this.failure ??= reason('the client closed the connection');
    this.socket.destroy();
    return this.closed;
  }

  private take(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (p === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(p.timer);
    return p;
  }

  private lost(method: string, cause: unknown): ClientError {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    return new ClientError(
      ClientErrorCodes.ConnectionLost,
      `connection to memoryd at ${this.socketPath} closed before the answer to ${method}${why}`,
      { cause },
    );
  }

  /** Fails every waiting request with `make(method)`. */
  private failAll(make: (method: string) => ClientError): void {
    for (const id of [...this.pending.keys()]) {
      const p = this.take(id);
      if (p !== undefined) p.reject(make(p.method));
    }
    // Our callers are settled; this only empties JSONRPCClient's map.
    this.rpc.rejectAllPendingRequests('connection closed');
  }

  /** Ends the connection because the stream can no longer be trusted. */
  private breakWith(cause: Error): void {
    this.failure ??= cause;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const lines = this.splitter.push(chunk);
    if (lines === 'overflow') {
      this.breakWith(reason(`memoryd sent a line over ${MAX_LINE_BYTES} bytes`));
      return;
    }
    for (const line of lines) {
      if (!this.isOpen) return;
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (err) {
      this.breakWith(reason(`memoryd sent a line that is not JSON: ${(err as Error).message}`, err));
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) {
      // Anything but a response (say, a notification a later daemon may
      // send) is ignored, so a newer daemon does not break older clients.
      if (!isJSONRPCResponse(item)) continue;
      if (item.id === null && item.error) {
        // An error not tied to a request (over the connection cap, -32011):
        // the daemon closes this connection, so nothing waiting will be
        // answered; each waiting request gets that error.
        const wire = item.error;
        this.failAll(() => rpcError(wire));
        this.breakWith(reason(`memoryd answered ${wire.code}: ${wire.message}`));
        return;
      }
      this.rpc.receive(item);
    }
  }
}

/** A JSON-RPC error object from the daemon, as ClientError Rpc. */
function rpcError(error: { code: number; message: string; data?: unknown }): ClientError {
  return new ClientError(ClientErrorCodes.Rpc, error.message, {
    rpcCode: error.code,
    ...(error.data === undefined ? {} : { data: error.data }),
  });
}
