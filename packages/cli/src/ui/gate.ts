import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request is turned away: its HTTP status and one sentence for the person who sent it. */
export interface Refusal {
  status: number;
  message: string;
}

/** A request the gate let through, and whether it arrived with the URL token (then it is answered with the cookie and a redirect). */
export type Admission = { kind: 'pass' } | { kind: 'exchange'; cookie: string; location: string } | { kind: 'refuse'; refusal: Refusal };

/** Methods that change nothing: every other method needs a same-origin `Origin`. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Compares two secrets in time that does not depend on where they differ. */
function sameSecret(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a Cookie header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Who may use the page (docs/operations.md, "Web page"). Any local user can
 * reach a 127.0.0.1 port, so every request must carry the session cookie,
 * which only the holder of the printed URL can get: its token works once,
 * is swapped for the cookie (HttpOnly, SameSite=Strict) and is taken out of
 * the address bar by a redirect. The Host header must name this server's
 * own address (a rebound DNS name does not), and a request that may change
 * something must come from the page itself (its Origin). The secrets are
 * never logged.
 */
export class Gate {
  /** The page's one address, `127.0.0.1:PORT`, as Host headers say it. */
  readonly host: string;
  /** The page's origin, as Origin headers say it. */
  readonly origin: string;
  /** The one-time token of the printed URL; undefined once it was used. */
  #urlToken: string | undefined = randomBytes(32).toString('base64url');
  /** The session cookie's value, given in exchange for the URL token. */
  readonly #session = randomBytes(32).toString('base64url');
  /** The cookie's name: per port, so that two pages on one machine do not overwrite each other's (cookies ignore ports). */
  readonly #cookieName: string;

  constructor(port: number) {
    this.host = `127.0.0.1:${port}`;
    this.origin = `http://${this.host}`;
    this.#cookieName = `memoryd_ui_${port}`;
  }

  /** The address to print and open, with the one-time token; undefined once it was used. */
  get firstUrl(): string | undefined {
    return this.#urlToken === undefined ? undefined : `${this.origin}/?token=${this.#urlToken}`;
  }

  /** Decides a request: refused, passed, or (the first visit) the URL token swapped for the cookie. */
  admit(req: IncomingMessage): Admission {
    if (req.headers.host !== this.host) {
      return refuse(421, `this page is served only at ${this.origin}: the request named host ${JSON.stringify(req.headers.host ?? '')}`);
    }
    const url = new URL(req.url ?? '/', this.origin);
    const token = url.searchParams.get('token');
    const hasSession = sameSecret(cookieValue(req.headers.cookie, this.#cookieName), this.#session);
    if (token !== null) {
      url.searchParams.delete('token');
      const location = `${url.pathname}${url.search}`;
      if (hasSession) return { kind: 'exchange', cookie: this.#cookie(), location };
      if (req.method !== 'GET' || this.#urlToken === undefined || !sameSecret(token, this.#urlToken)) {
        return refuse(401, 'this link is wrong or was used already: run memoryctl ui again for a new one');
      }
      this.#urlToken = undefined;
      return { kind: 'exchange', cookie: this.#cookie(), location };
    }
    if (!hasSession) return refuse(401, 'open the address memoryctl ui printed: this page needs its token');
    if (!SAFE_METHODS.has(req.method ?? '') && req.headers.origin !== this.origin) {
      return refuse(403, `a change must come from the page itself (origin ${this.origin}), not from ${JSON.stringify(req.headers.origin ?? 'no origin')}`);
    }
    return { kind: 'pass' };
  }

  #cookie(): string {
    return `${this.#cookieName}=${this.#session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

function refuse(status: number, message: string): Admission {
  return { kind: 'refuse', refusal: { status, message } };
}
