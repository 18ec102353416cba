import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import type { MethodDescriptor, ParamsOf, ResultOf } from '@memoryd/protocol';
import { withTimeout } from '@memoryd/test-support';

/** A JSON-RPC error object as the daemon sends it. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC response object (or whatever the daemon sent on one line). */
export interface RpcResponse {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: RpcError;
}

/** Anything one line can hold: a response, or an array of them (a batch). */
export type Message = RpcResponse | RpcResponse[];

/** Default bound of every wait on the wire. */
export const RPC_TIMEOUT_MS = 10_000;

/** An NDJSON JSON-RPC client over a Unix socket, for black-box tests. */
export interface RpcClient {
  /** The raw socket, for tests of backpressure and half-close. */
  socket: Socket;
  /** Sends a request with a fresh numeric id; resolves with the whole response. */
  call(method: string, params?: unknown, timeoutMs?: number): Promise<RpcResponse>;
  /** Sends a request with the given id; resolves with the response carrying that id. */
  request(id: string | number, method: string, params?: unknown, timeoutMs?: number): Promise<RpcResponse>;
  /** Calls a method that must succeed; returns its typed result. */
  ok<M extends MethodDescriptor>(m: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Calls a method that must fail; returns its error. */
  fail(method: string, params?: unknown): Promise<RpcError>;
  /** Writes exactly these bytes; returns what socket.write returned. */
  sendRaw(text: string | Buffer): boolean;
  /** The next message no pending call claimed, bounded. */
  nextMessage(timeoutMs?: number): Promise<Message>;
  /** Messages received and not claimed yet. */
  pending(): number;
  /** Ends the write side and waits (bounded) for the close. */
  close(timeoutMs?: number): Promise<void>;
  /** Resolves when the socket is closed. */
  closed: Promise<void>;
  /** True once the socket closed. */
  isClosed(): boolean;
}

/** Connects (bounded) and returns a client that parses each line as JSON. */
export async function connect(socketPath: string, timeoutMs = RPC_TIMEOUT_MS): Promise<RpcClient> {
  const socket = createConnection(socketPath);
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    timeoutMs,
    `connect to ${socketPath}`,
  );
  return wrap(socket);
}

function wrap(socket: Socket): RpcClient {
  const waiters = new Map<unknown, (r: RpcResponse) => void>();
  const queue: Array<Message | Error> = [];
  let queueWaiter: (() => void) | undefined;
  let nextId = 1;
  let buf: Buffer = Buffer.alloc(0);
  let isClosed = false;

  const deliver = (m: Message | Error): void => {
    if (!(m instanceof Error) && !Array.isArray(m) && m !== null && typeof m === 'object' && 'id' in m) {
      const w = waiters.get(m.id);
      if (w) {
        waiters.delete(m.id);
        w(m);
        return;
      }
    }
    queue.push(m);
    queueWaiter?.();
  };

  socket.on('data', (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf(10, start)) !== -1) {
      const line = buf.subarray(start, nl).toString('utf8');
      start = nl + 1;
      try {
        deliver(JSON.parse(line) as Message);
      } catch {
        deliver(new Error(`daemon sent a line that is not JSON: ${line.slice(0, 200)}`));
      }
    }
    buf = buf.subarray(start);
  });
  socket.on('error', () => {
    // A reset by the daemon shows up as 'close'; tests assert on that.
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      queueWaiter?.();
      resolve();
    }),
  );

  const send = (obj: object): void => {
    socket.write(JSON.stringify(obj) + '\n');
  };

  const request = (id: string | number, method: string, params?: unknown, timeoutMs = RPC_TIMEOUT_MS): Promise<RpcResponse> => {
    const p = new Promise<RpcResponse>((resolve) => waiters.set(id, resolve));
    send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return withTimeout(
      Promise.race([p, closed.then(() => Promise.reject(new Error(`connection closed before the response to ${method}`)))]),
      timeoutMs,
      `response to ${method} (id ${JSON.stringify(id)})`,
    ).finally(() => waiters.delete(id));
  };

  const call = (method: string, params?: unknown, timeoutMs?: number): Promise<RpcResponse> =>
    request(nextId++, method, params, timeoutMs);

  const client: RpcClient = {
    socket,
    call,
    request,
    ok: async <M extends MethodDescriptor>(m: M, params: ParamsOf<M>): Promise<ResultOf<M>> => {
      const r = await call(m.method, params);
      assert.equal(r.error, undefined, `${m.method} failed: ${JSON.stringify(r.error)}`);
      return r.result as ResultOf<M>;
    },
    fail: async (method, params) => {
      const r = await call(method, params);
      assert.equal(r.result, undefined, `${method} unexpectedly succeeded: ${JSON.stringify(r.result)}`);
      assert.ok(r.error, `${method}: response has neither result nor error`);
      return r.error;
    },
    sendRaw: (text) => socket.write(text),
    nextMessage: async (timeoutMs = RPC_TIMEOUT_MS) => {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (isClosed) throw new Error('connection closed before the next message');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
        await withTimeout(new Promise<void>((r) => (queueWaiter = r)), left, 'the next message').catch(() => undefined);
        queueWaiter = undefined;
      }
      const m = queue.shift()!;
      if (m instanceof Error) throw m;
      return m;
    },
    pending: () => queue.length,
    close: async (timeoutMs = 5000) => {
      if (!isClosed) {
        socket.end();
        await withTimeout(closed, timeoutMs, 'the connection to close').catch(() => socket.destroy());
      }
    },
    closed,
    isClosed: () => isClosed,
  };
  return client;
}

/** Asserts a response is an error with `code` (and id, when given). */
export function assertError(r: Message, code: number, id?: unknown): RpcError {
  assert.ok(!Array.isArray(r), `expected one response, got a batch: ${JSON.stringify(r)}`);
  assert.equal(r.jsonrpc, '2.0');
  assert.equal(r.result, undefined, `expected error ${code}, got result ${JSON.stringify(r.result)}`);
  assert.ok(r.error, `expected error ${code}, got ${JSON.stringify(r)}`);
  assert.equal(r.error.code, code, `expected code ${code}, got ${JSON.stringify(r.error)}`);
  assert.equal(typeof r.error.message, 'string');
  if (id !== undefined) assert.equal(r.id, id);
  return r.error;
}

/** Asserts an invalid_params error naming `field` with a reason. */
export function assertInvalidParams(e: RpcError, field: string): void {
  assert.equal(e.code, -32602, `expected -32602 for ${field}, got ${JSON.stringify(e)}`);
  const data = e.data as { field?: unknown; reason?: unknown } | undefined;
  assert.ok(data && typeof data === 'object', `invalid_params without data: ${JSON.stringify(e)}`);
  assert.equal(data.field, field, `wrong data.field: ${JSON.stringify(e)}`);
  assert.equal(typeof data.reason, 'string');
  assert.ok((data.reason as string).length > 0, 'data.reason is empty');
}

/** Asserts the daemon answers `daemon.hello` on this connection. */
export async function assertServing(c: RpcClient): Promise<void> {
  const r = await c.call('daemon.hello', {}, 5000);
  assert.equal(r.error, undefined, `daemon.hello failed: ${JSON.stringify(r.error)}`);
  assert.equal((r.result as { protocolVersion?: unknown }).protocolVersion, 1);
}
