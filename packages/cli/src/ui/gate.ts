import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request is turned away: its HTTP status and one sentence for the person who sent it. */
export interface Refusal {
  status: number;
  message: string;
}

/** How long an export ticket may wait for its download, in ms. */
const TICKET_MS = 60_000;
/** Export tickets outstanding at most; the oldest goes first. */
const MAX_TICKETS = 32;

/** A fresh secret: 256 bits, URL-safe. */
function secret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares a secret given with the one held, in time that does not depend on where they differ. */
function sameSecret(given: string | undefined, held: string | undefined): boolean {
  if (given === undefined || held === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(held);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer TOKEN` header, or undefined. */
function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer ([A-Za-z0-9_-]{1,128})$/.exec(req.headers.authorization ?? '')?.[1];
}

/** A fresh name under localhost for one run's origin, such as `3f9c…e1.localhost`. */
export function freshHostName(): string {
  return `${randomBytes(12).toString('hex')}.localhost`;
}

/**
 * Who may use the page (docs/operations.md, "Web page"; ADR 0040). Any
 * local user can reach a loopback port, cookies are sent to every port of
 * a host, and whoever served on a port before may have left a service
 * worker or cached files for its origin. So each run has an origin of its
 * own (a fresh name under localhost), and the page holds no cookie: the
 * printed address carries a token in its fragment (never sent to a
 * server), which the page swaps once for a session token kept in its
 * origin's storage and sent as `Authorization: Bearer` on every API
 * request. Downloads, which cannot carry a header, take a ticket the page
 * asked for: one use, one minute. The Host header must name this run's
 * address (a rebound DNS name does not), and a request that may change
 * something must come from the page itself (its Origin). The secrets are
 * never logged.
 */
export class Gate {
  /** The page's one address, `NAME.localhost:PORT` (or `127.0.0.1:PORT`), as Host headers say it. */
  readonly host: string;
  /** The page's origin, as Origin headers say it. */
  readonly origin: string;
  /** The one-time token of the printed address; undefined once it was used. */
  #urlToken: string | undefined = secret();
  /** The session token the URL token is swapped for. */
  readonly #session = secret();
  /** Export tickets by value: which agent (undefined: everything), and until when. */
  readonly #tickets = new Map<string, { agentId: string | undefined; until: number }>();

  constructor(hostName: string, port: number) {
    this.host = `${hostName}:${port}`;
    this.origin = `http://${this.host}`;
  }

  /** The address to print and open, with the one-time token in its fragment. */
  get firstUrl(): string {
    return `${this.origin}/#token=${this.#urlToken ?? ''}`;
  }

  /** A request whose Host or target is not this server's is refused (421, or 400 for a target that is not a path). */
  checkTarget(req: IncomingMessage): Refusal | undefined {
    if (req.headers.host !== this.host) {
      return { status: 421, message: `this page is served only at ${this.origin}: the request named host ${JSON.stringify(req.headers.host ?? '')}` };
    }
    const target = req.url ?? '';
    if (!target.startsWith('/') || target.startsWith('//') || target.includes('\\') || !URL.canParse(target, this.origin)) {
      return { status: 400, message: 'the request target must be a path' };
    }
    return undefined;
  }

  /** Anything but GET and HEAD must come from the page itself. */
  checkOrigin(req: IncomingMessage): Refusal | undefined {
    if (req.method === 'GET' || req.method === 'HEAD' || req.headers.origin === this.origin) return undefined;
    return { status: 403, message: `a change must come from the page itself (origin ${this.origin}), not from ${JSON.stringify(req.headers.origin ?? 'no origin')}` };
  }

  /** Swaps the printed token (as the bearer) for the session token, once. */
  openSession(req: IncomingMessage): string | Refusal {
    if (!sameSecret(bearer(req), this.#urlToken)) return { status: 401, message: 'this address is wrong or was used already: run memoryctl ui again for a new one' };
    this.#urlToken = undefined;
    return this.#session;
  }

  /** An API request must carry the session token. */
  checkSession(req: IncomingMessage): Refusal | undefined {
    if (sameSecret(bearer(req), this.#session)) return undefined;
    return { status: 401, message: 'open the address memoryctl ui printed: this page needs its token' };
  }

  /** A ticket for one download of the export of `agentId` (undefined: everything). */
  issueTicket(agentId: string | undefined): string {
    const now = Date.now();
    for (const [t, { until }] of this.#tickets) if (until < now || this.#tickets.size >= MAX_TICKETS) this.#tickets.delete(t);
    const ticket = secret();
    this.#tickets.set(ticket, { agentId, until: now + TICKET_MS });
    return ticket;
  }

  /** Uses up a ticket: what it exports, or a refusal when it is unknown, used or stale. */
  redeemTicket(ticket: string | null): { agentId: string | undefined } | Refusal {
    const held = ticket === null ? undefined : this.#tickets.get(ticket);
    if (ticket !== null) this.#tickets.delete(ticket);
    if (held === undefined || held.until < Date.now()) return { status: 401, message: 'this download link was used or is over a minute old: export again from the page' };
    return { agentId: held.agentId };
  }
}

/** Whether a gate's answer is a refusal. */
export function isRefusal(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && 'status' in x && 'message' in x;
}
