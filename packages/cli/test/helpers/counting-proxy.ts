// A Unix socket between a client and the daemon that passes every byte on
// and counts the requests by method: how a test sees what a front end asks
// the daemon for without looking inside either.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir, trackCloser } from '@memoryd/test-support';

/** A running proxy: its socket, and the requests seen since the last reset. */
export interface CountingProxy {
  socket: string;
  /** The requests seen, in order: method and params. */
  requests(): Array<{ method: string; params: Record<string, unknown> }>;
  /** Forgets the requests seen so far. */
  reset(): void;
}

/** Starts a proxy to the daemon on `daemonSocket`; it stops at the test's cleanup. */
export async function startCountingProxy(daemonSocket: string): Promise<CountingProxy> {
  const socket = join(tempDir('proxy-'), 'p.sock');
  let seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const daemon = createConnection(daemonSocket);
    open.add(client).add(daemon);
    let pending = '';
    client.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const msg = JSON.parse(line) as { method?: string; params?: Record<string, unknown> };
        if (msg.method !== undefined) seen.push({ method: msg.method, params: msg.params ?? {} });
      }
    });
    client.pipe(daemon).pipe(client);
    const end = () => {
      client.destroy();
      daemon.destroy();
    };
    client.on('error', end).on('close', end);
    daemon.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  trackCloser(async () => {
    for (const s of open) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { socket, requests: () => [...seen], reset: () => void (seen = []) };
}
