import { createServer, type Server, type Socket } from 'node:net';

/** A JSON-RPC request as the fake server received it. */
export interface FakeRequest {
  id: number | string | null;
  method: string;
  params?: unknown;
}

/** What the fake server does with one request. */
export type FakeHandler = (req: FakeRequest, socket: Socket, reply: (message: unknown) => void) => void;

/** A plausible `daemon.hello` result. */
export const FAKE_HELLO = {
  daemonVersion: '0.0.0-fake',
  protocolVersion: 1,
  capabilities: ['reportNotFound'],
  pid: 424242,
  startedAt: '2026-01-01T00:00:00.000Z',
};

/** A tiny NDJSON server standing in for the daemon where a real one cannot misbehave on demand. */
export interface FakeServer {
  path: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Requests received so far, in order. */
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

/**
 * Listens on `path` and hands every request line to `handler`, which
 * decides whether and how to answer ({@link answerHello} is the usual
 * first step, since the client greets before anything else).
 */
export async function fakeServer(path: string, handler: FakeHandler): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const requests: FakeRequest[] = [];
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const req = JSON.parse(line) as FakeRequest;
        requests.push(req);
        handler(req, socket, (message) => socket.write(`${JSON.stringify(message)}\n`));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    get connections() {
      return connections;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers `daemon.hello` and returns true; false for any other request. */
export function answerHello(req: FakeRequest, reply: (message: unknown) => void): boolean {
  if (req.method !== 'daemon.hello') return false;
  reply({ jsonrpc: '2.0', id: req.id, result: FAKE_HELLO });
  return true;
}
