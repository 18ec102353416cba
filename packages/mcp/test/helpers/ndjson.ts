import { createConnection } from 'node:net';
import { withTimeout } from '@memoryd/test-support';

/**
 * One JSON-RPC request over a fresh NDJSON connection to `socket`;
 * resolves with the whole response. For probing a daemon (its pid, its
 * counts) independently of the client under test.
 */
export async function rpcOnce(socket: string, method: string, params: object = {}, timeoutMs = 5000): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const conn = createConnection(socket);
  try {
    return await withTimeout(
      new Promise((resolve, reject) => {
        let buf = '';
        conn.setEncoding('utf8');
        conn.on('data', (d: string) => {
          buf += d;
          const nl = buf.indexOf('\n');
          if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
        });
        conn.once('error', reject);
        conn.once('close', () => reject(new Error(`connection to ${socket} closed before the answer to ${method}`)));
        conn.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n');
      }),
      timeoutMs,
      `${method} on ${socket}`,
    );
  } finally {
    conn.destroy();
  }
}

/** What the tests read of `daemon.status`. */
export interface Status {
  pid: number;
  facts: number;
  checkpoints: number;
  dataDir: string;
  socket: string;
}

/** `daemon.status` of the daemon on `socket`, which must answer. */
export async function daemonStatus(socket: string): Promise<Status> {
  const r = await rpcOnce(socket, 'daemon.status');
  if (r.error !== undefined) throw new Error(`daemon.status failed: ${JSON.stringify(r.error)}`);
  return r.result as Status;
}
