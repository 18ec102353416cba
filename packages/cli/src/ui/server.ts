import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DaemonClient } from '@memoryd/client';
import { type Asset, loadAssets } from './assets.js';
import { BodyTooLarge, readBoundedBody } from './body.js';
import { callForPage } from './daemon-calls.js';
import { Gate } from './gate.js';
import { head, sendError, sendText } from './responses.js';
import { receiveImport, sendExport } from './transfer.js';

/** What `memoryctl ui` runs: the page's server, bound to 127.0.0.1. */
export interface UiServer {
  /** The address to open, with its one-time token (print it once; never log it). */
  firstUrl: string;
  /** The page's origin, `http://127.0.0.1:PORT`. */
  origin: string;
  /** Stops taking requests and ends the open ones. */
  close(): Promise<void>;
}

/** Serves one request the gate let through. */
async function route(client: DaemonClient, assets: ReadonlyMap<string, Asset>, req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  const asset = assets.get(url.pathname);
  if (asset !== undefined) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'the page\'s files are read with GET', { allow: 'GET, HEAD' });
    head(res, 200, { 'content-type': asset.type, 'content-length': asset.body.length });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return;
  }
  if (url.pathname === '/api/call') {
    if (req.method !== 'POST') return sendText(res, 405, '/api/call takes POST', { allow: 'POST' });
    return callForPage(client, await readBoundedBody(req), res);
  }
  if (url.pathname === '/api/export') {
    if (req.method !== 'GET') return sendText(res, 405, '/api/export takes GET', { allow: 'GET' });
    return sendExport(client, url, res);
  }
  if (url.pathname === '/api/import') {
    if (req.method !== 'POST') return sendText(res, 405, '/api/import takes POST', { allow: 'POST' });
    return receiveImport(client, req, res);
  }
  sendText(res, 404, `no such page: ${url.pathname}`);
}

/** Answers a request: the gate's refusal, the token swapped for the cookie, or the route. */
async function answer(gate: Gate, client: DaemonClient, assets: ReadonlyMap<string, Asset>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const admission = gate.admit(req);
  if (admission.kind === 'refuse') {
    req.resume();
    return sendText(res, admission.refusal.status, admission.refusal.message);
  }
  if (admission.kind === 'exchange') {
    req.resume();
    head(res, 303, { location: admission.location, 'set-cookie': admission.cookie, 'content-length': 0 });
    res.end();
    return;
  }
  try {
    await route(client, assets, req, res, gate.origin);
  } catch (err) {
    if (res.headersSent) res.destroy(err as Error);
    else if (err instanceof BodyTooLarge) sendError(res, 413, 'UI_TOO_LARGE', err.message);
    else sendError(res, 500, 'UI_INTERNAL', err instanceof Error ? err.message : String(err));
    req.resume();
  }
}

/** Listens on 127.0.0.1:port (0: a free one). */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new Error(`port ${port} on 127.0.0.1 is in use: choose another with --port, or leave --port out for a free one`, { cause: err }));
      else if (err.code === 'EACCES') reject(new Error(`port ${port} on 127.0.0.1 may not be used by this user: choose one above 1023`, { cause: err }));
      else reject(err);
    });
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      server.removeAllListeners('error');
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts the page's server on 127.0.0.1 (docs/operations.md, "Web page"):
 * its files, and a JSON API that calls the daemon through `client`, one
 * call per request. Nothing is logged: a request line would carry the
 * token.
 */
export async function startUiServer(client: DaemonClient, port: number): Promise<UiServer> {
  const assets = await loadAssets();
  let gate: Gate | undefined;
  const server = createServer((req, res) => {
    void answer(gate!, client, assets, req, res);
  });
  const bound = await listen(server, port);
  gate = new Gate(bound);
  return {
    firstUrl: gate.firstUrl!,
    origin: gate.origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
