import { createConnection } from 'node:net';
import { withTimeout } from '@memoryd/test-support';

/** A JSON-RPC response as the daemon wrote it. */
export interface RawResponse {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Sends one request on a fresh connection, without the client, and returns
 * the daemon's response: the reference the client's mapping is checked
 * against. Bounded by 5 s.
 */
export function rawCall(socketPath: string, method: string, params: unknown): Promise<RawResponse> {
  const socket = createConnection(socketPath);
  const answer = new Promise<RawResponse>((resolve, reject) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (nl !== -1) resolve(JSON.parse(buffered.slice(0, nl)) as RawResponse);
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed without an answer')));
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}\n`);
  });
  return withTimeout(answer, 5_000, `${method} on ${socketPath}`).finally(() => socket.destroy());
}
