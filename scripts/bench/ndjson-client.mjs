// A minimal JSON-RPC 2.0 client over NDJSON on a Unix socket, for the
// benchmark. It deliberately does less than @memoryd/client (no autostart, no
// reconnect, no hello): the bench measures the daemon and the transport, so
// the client must add as little of its own work as possible.

import net from 'node:net';

/** Default bound on one request's answer, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** Default bound on establishing the connection, in milliseconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * An error for a request that got no usable answer: a JSON-RPC error
 * response (`code` is the wire code, `data` its data), a timeout
 * (`code` 'TIMEOUT') or a lost connection (`code` 'CLOSED').
 */
export class RpcError extends Error {
  /**
   * @param {string} message
   * @param {number|string} code
   * @param {unknown} [data]
   */
  constructor(message, code, data) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
}

/**
 * Opens a connection to `socketPath`.
 * @param {string} socketPath
 * @param {{connectTimeoutMs?: number, requestTimeoutMs?: number}} [options]
 * @returns {Promise<NdjsonClient>}
 */
export function connect(socketPath, options = {}) {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new RpcError(`connect to ${socketPath} timed out after ${connectTimeoutMs} ms`, 'TIMEOUT'));
    }, connectTimeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(new NdjsonClient(socket, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS));
    });
  });
}

/**
 * One connection: sends requests as single lines and matches answers by id,
 * so several requests may be in flight and answered in any order.
 */
export class NdjsonClient {
  /**
   * @param {net.Socket} socket a connected socket
   * @param {number} requestTimeoutMs
   */
  constructor(socket, requestTimeoutMs) {
    this.socket = socket;
    this.requestTimeoutMs = requestTimeoutMs;
    this.nextId = 1;
    /** @type {Map<number, {resolve: Function, reject: Function, timer: NodeJS.Timeout}>} */
    this.pending = new Map();
    this.buffer = '';
    this.closed = false;
    socket.setEncoding('utf8');
    socket.setNoDelay?.(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.failAll(new RpcError(`connection error: ${err.message}`, 'CLOSED')));
    socket.on('close', () => this.failAll(new RpcError('connection closed', 'CLOSED')));
  }

  /**
   * Sends one request and resolves with its `result`; rejects with an
   * RpcError on an error response, a timeout or a lost connection.
   * @param {string} method
   * @param {unknown} params
   * @param {{timeoutMs?: number}} [options]
   * @returns {Promise<any>}
   */
  request(method, params, options = {}) {
    if (this.closed) return Promise.reject(new RpcError('connection closed', 'CLOSED'));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError(`${method} (id ${id}) got no answer within ${timeoutMs} ms`, 'TIMEOUT'));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  /** @param {string} chunk */
  onData(chunk) {
    this.buffer += chunk;
    let newline;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() !== '') this.onLine(line);
    }
  }

  /** @param {string} line */
  onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.failAll(new RpcError(`unparsable line from server: ${line.slice(0, 200)}`, 'PROTOCOL'));
      this.socket.destroy();
      return;
    }
    for (const response of Array.isArray(message) ? message : [message]) {
      const entry = this.pending.get(response?.id);
      // An answer with id null (e.g. -32011 overloaded) or an unknown id
      // belongs to no request of ours: fail everything rather than hang.
      if (entry === undefined) {
        const err = response?.error;
        this.failAll(new RpcError(`unmatched response: ${line.slice(0, 200)}`, err?.code ?? 'PROTOCOL', err?.data));
        continue;
      }
      this.pending.delete(response.id);
      clearTimeout(entry.timer);
      if (response.error !== undefined) {
        entry.reject(new RpcError(response.error.message, response.error.code, response.error.data));
      } else {
        entry.resolve(response.result);
      }
    }
  }

  /** @param {RpcError} err */
  failAll(err) {
    if (err.code === 'CLOSED') this.closed = true;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      this.pending.delete(id);
      entry.reject(err);
    }
  }

  /**
   * Ends the connection and waits (bounded) for it to close.
   * @param {number} [timeoutMs]
   * @returns {Promise<void>}
   */
  close(timeoutMs = 2_000) {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.socket.destroy();
        resolve();
      }, timeoutMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.end();
    });
  }
}
