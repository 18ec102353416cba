import type { ServerResponse } from 'node:http';

/**
 * The policy every answer carries: the page's own files and nothing else,
 * no inline script or style, no frame around it, no form posting
 * elsewhere. `img-src data:` is for the icon the page names inline so that
 * the browser asks for no /favicon.ico.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Headers on every answer. No Access-Control-* header is ever sent: other origins get nothing (no CORS). */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Starts an answer with the common headers and `headers`. */
export function head(res: ServerResponse, status: number, headers: Record<string, string | number> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, ...headers });
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  head(res, status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Answers with an error: `{error: {code, message}}`, code the daemon's or the page server's own. */
export function sendError(res: ServerResponse, status: number, code: string | number, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

/** Answers with one sentence of plain text (a refused request, a missing file). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  head(res, status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) + 1, ...headers });
  res.end(`${text}\n`);
}
