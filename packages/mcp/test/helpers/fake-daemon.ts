import { createServer, type Server, type Socket } from 'node:net';
import { withTimeout } from '@memoryd/test-support';

/** A request the fixture received. */
export interface Received {
  method: string;
  params: Record<string, unknown>;
}

/** What the fixture does with a request: answer it, or drop the connection unanswered. */
export type Reply = { result: unknown } | { error: { code: number; message: string } } | 'drop';

/** A running fake daemon. */
export interface FakeDaemon {
  socket: string;
  /** Every request so far, in arrival order. */
  received: Received[];
  close(): Promise<void>;
}

/**
 * A stand-in daemon for what the real one cannot be made to do on cue (be
 * old, die in the middle of a call): NDJSON JSON-RPC 2.0 on a Unix socket,
 * like the real one. `daemon.hello` announces `capabilities` and
 * `protocolVersion`; every other request gets `reply(request, index)`,
 * index counting from 0 per method.
 */
export async function startFakeDaemon(
  socketPath: string,
  capabilities: string[],
  reply: (req: Received, index: number) => Reply,
  protocolVersion: unknown = 1,
): Promise<FakeDaemon> {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((conn) => {
    sockets.add(conn);
    conn.once('close', () => sockets.delete(conn));
    conn.on('error', () => undefined);
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line) as { id?: unknown; method: string; params?: Record<string, unknown> };
        const req = { method: msg.method, params: msg.params ?? {} };
        received.push(req);
        const index = counts.get(req.method) ?? 0;
        counts.set(req.method, index + 1);
        const out: Reply =
          req.method === 'daemon.hello'
            ? { result: { daemonVersion: '0.0.1', protocolVersion, capabilities, pid: process.pid, startedAt: new Date().toISOString() } }
            : reply(req, index);
        if (out === 'drop') {
          conn.destroy();
          return;
        }
        if (msg.id !== undefined) conn.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...out }) + '\n');
      }
    });
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    }),
    5000,
    `the fake daemon to listen on ${socketPath}`,
  );
  return {
    socket: socketPath,
    received,
    close: async () => {
      for (const s of sockets) s.destroy();
      await withTimeout(new Promise<void>((resolve) => server.close(() => resolve())), 5000, 'the fake daemon to close');
    },
  };
}

/** The message an old daemon gives a missing checkpoint. */
export function oldNotFoundMessage(agentId: string): string {
  return `agent ${agentId} has no checkpoint`;
}

/**
 * Plays a daemon from before `reportNotFound` (docs/api-stability.md,
 * "Version skew"):
 * its hello announces no capabilities, and `checkpoint.resume` of a missing
 * checkpoint is error -32004 whatever the params say (old daemons ignore
 * unknown params). `capabilities` lets a test make it announce some anyway.
 */
export function startOldDaemon(socketPath: string, capabilities: string[] = []): Promise<FakeDaemon> {
  return startFakeDaemon(socketPath, capabilities, (req) =>
    req.method === 'checkpoint.resume'
      ? { error: { code: -32004, message: oldNotFoundMessage(String(req.params['agentId'])) } }
      : { error: { code: -32601, message: `method not found: ${req.method}` } },
  );
}
