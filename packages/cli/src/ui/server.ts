import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DaemonClient } from '@memoryd/client';
import { type Asset, loadAssets } from './assets.js';
import { BodyTooLarge, readBoundedBody } from './body.js';
import { callForPage } from './daemon-calls.js';
import { Gate, type Refusal, freshHostName, isRefusal } from './gate.js';
import { head, sendError, sendJson, sendText } from './responses.js';
import { receiveImport, sendExport } from './transfer.js';

/** What `memoryctl ui` runs: the page's server, on the loopback. */
export interface UiServer {
  /** The address to open, with its one-time token (print it once; never log it). */
  firstUrl: string;
  /** The page's origin, `http://NAME.localhost:PORT` (or `http://127.0.0.1:PORT`). */
  origin: string;
  /** Stops taking requests and ends the open ones. */
  close(): Promise<void>;
}

/** What a request is answered with: the server's parts. */
interface Parts {
  gate: Gate;
  client: DaemonClient;
  assets: ReadonlyMap<string, Asset>;
  /** Where a failure of the server itself is told (the terminal), never to the page. */
  report(err: unknown): void;
}

/** The API's routes: method, whether it needs the session (the others check a token of their own), and what it does. */
type Handler = (parts: Parts, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
interface ApiRoute {
  method: string;
  session: boolean;
  handle: Handler;
}
const ROUTES: ReadonlyMap<string, ApiRoute> = new Map<string, ApiRoute>([
  ['/api/session', { method: 'POST', session: false, handle: openSession }],
  ['/api/call', { method: 'POST', session: true, handle: async (p, req, res) => callForPage(p.client, await readBoundedBody(req), res) }],
  ['/api/export-ticket', { method: 'POST', session: true, handle: async (p, req, res) => issueTicket(p, await readBoundedBody(req), res) }],
  ['/api/export', { method: 'GET', session: false, handle: exportByTicket }],
  ['/api/import', { method: 'POST', session: true, handle: (p, req, res) => receiveImport(p.client, req, res) }],
]);

/**
 * Answers a refusal and closes the connection, reading nothing more of
 * the body: a client without the right to ask cannot hold a connection
 * open by sending a body slowly (there is no request timeout, for imports).
 */
function refuse(res: ServerResponse, req: IncomingMessage, refusal: Refusal): void {
  res.once('finish', () => req.socket.destroy());
  sendText(res, refusal.status, refusal.message, { connection: 'close' });
}

/** `POST /api/session` with the printed token as the bearer: the session token, once. */
async function openSession(p: Parts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const session = p.gate.openSession(req);
  if (isRefusal(session)) return refuse(res, req, session);
  req.resume();
  sendJson(res, 200, { result: { session } });
}

/** `POST /api/export-ticket` with `{agentId?}`: a ticket for one download. */
async function issueTicket(p: Parts, body: string, res: ServerResponse): Promise<void> {
  let agentId: unknown;
  try {
    agentId = body.trim() === '' ? undefined : (JSON.parse(body) as { agentId?: unknown }).agentId;
  } catch {
    return sendError(res, 400, 'UI_BAD_REQUEST', 'the body is not JSON');
  }
  if (agentId !== undefined && typeof agentId !== 'string') return sendError(res, 400, 'UI_BAD_REQUEST', 'agentId must be a string');
  sendJson(res, 200, { result: { ticket: p.gate.issueTicket(agentId) } });
}

/** `GET /api/export?ticket=T`: the download the ticket was issued for. */
async function exportByTicket(p: Parts, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const redeemed = p.gate.redeemTicket(url.searchParams.get('ticket'));
  if (isRefusal(redeemed)) return refuse(res, req, redeemed);
  return sendExport(p.client, redeemed.agentId, res);
}

/** Serves a request whose target is this server's: a file of the page (no secret in it), or an API route. */
async function route(p: Parts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url!, p.gate.origin);
  const asset = p.assets.get(url.pathname);
  if (asset !== undefined) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'the page\'s files are read with GET', { allow: 'GET, HEAD' });
    head(res, 200, { 'content-type': asset.type, 'content-length': asset.body.length });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return;
  }
  const api = ROUTES.get(url.pathname);
  if (api === undefined) return sendText(res, 404, `no such page: ${url.pathname}`);
  if (req.method !== api.method) return sendText(res, 405, `${url.pathname} takes ${api.method}`, { allow: api.method });
  const refusal = api.session ? p.gate.checkSession(req) : undefined;
  if (refusal !== undefined) return refuse(res, req, refusal);
  return api.handle(p, req, res, url);
}

/** Answers a request: refused by the gate, or routed; a failure of the server is told on the terminal and answered 500. */
async function answer(p: Parts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const refusal = p.gate.checkTarget(req) ?? p.gate.checkOrigin(req);
    if (refusal !== undefined) return refuse(res, req, refusal);
    await route(p, req, res);
  } catch (err) {
    // A client that went away mid-request (a closed tab) is no failure of the server.
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || req.socket.destroyed) return void res.destroy();
    req.resume();
    if (res.headersSent) res.destroy();
    else if (err instanceof BodyTooLarge) sendError(res, 413, 'UI_TOO_LARGE', err.message);
    else {
      p.report(err);
      sendError(res, 500, 'UI_INTERNAL', 'the page\'s server failed; memoryctl ui says why in its terminal');
    }
  }
}

/** Listens on `host`:`port` (0: a free one); resolves with the port. */
function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true, ipv6Only: host === '::1' }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server that may not be listening. */
function closeQuietly(server: Server): Promise<void> {
  return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
}

/** The sentence for a port that cannot be listened on. */
function portProblem(err: NodeJS.ErrnoException, port: number): Error {
  if (err.code === 'EADDRINUSE') return new Error(`port ${port} on the loopback is in use: choose another with --port, or leave --port out for a free one`, { cause: err });
  if (err.code === 'EACCES') return new Error(`port ${port} may not be used by this user: choose one above 1023`, { cause: err });
  return err;
}

/** Codes of a machine without an IPv6 loopback, where nothing can listen on [::1] (and so nothing can squat it). */
const NO_IPV6 = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/**
 * Listens on one port of both loopbacks, 127.0.0.1 and [::1]: a browser
 * may reach NAME.localhost on either, so no other process may hold the
 * other. A free port (0) is one free on both, tried again when [::1]
 * holds the one 127.0.0.1 gave.
 */
async function listenOnLoopbacks(make: () => Server, port: number): Promise<{ servers: Server[]; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const v4 = make();
    const bound = await listen(v4, '127.0.0.1', port).catch((err: NodeJS.ErrnoException) => {
      throw portProblem(err, port);
    });
    const v6 = make();
    try {
      await listen(v6, '::1', bound);
      return { servers: [v4, v6], port: bound };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NO_IPV6.has(code)) return { servers: [v4], port: bound };
      await closeQuietly(v4);
      if (code !== 'EADDRINUSE' || port !== 0 || attempt === 9) throw portProblem(err as NodeJS.ErrnoException, bound);
    }
  }
}

/** Where the page is served: a fresh name under localhost (the default), or 127.0.0.1 itself. */
export type UiAddress = 'fresh-name' | 'loopback-ip';

/**
 * Starts the page's server on the loopback (docs/operations.md, "Web
 * page"): its files, and a JSON API that calls the daemon through
 * `client`, one call per request. Requests are not logged (nothing would
 * show but the page's own use); a failure of the server itself goes to
 * `report`, with no secret in it.
 */
export async function startUiServer(client: DaemonClient, port: number, address: UiAddress, report: (err: unknown) => void): Promise<UiServer> {
  const assets = await loadAssets();
  let gate: Gate | undefined;
  // No request timeout: an import reads its body as fast as the daemon stores it, for as long as that takes.
  const make = () => {
    const server = createServer({ requestTimeout: 0 }, (req, res) => void answer({ gate: gate!, client, assets, report }, req, res));
    server.maxConnections = 256;
    return server;
  };
  const { servers, port: bound } = await listenOnLoopbacks(make, port);
  gate = new Gate(address === 'fresh-name' ? freshHostName() : '127.0.0.1', bound);
  // After the start: a failure to accept (out of file descriptors) is told, and the server goes on.
  for (const server of servers) server.on('error', report);
  return {
    firstUrl: gate.firstUrl,
    origin: gate.origin,
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
