// How the page reaches the daemon: through the page's server (memoryctl
// ui), one JSON call a request, each carrying the session token as
// `Authorization: Bearer`. The token lives in this origin's storage (which,
// unlike a cookie, no other port or run shares), got once for the
// token in the printed address's fragment. The types are the protocol's own.
import type { MethodDescriptor, ParamsOf, ResultOf } from '@memoryd/protocol';

/** A call that failed: the HTTP status, the daemon's or the page server's code, and its sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Answer<T> {
  result?: T;
  error?: { code: string | number; message: string };
}

/** Reads an answer of the page's server: its result, or an ApiError with what went wrong. */
export async function answerOf<T>(res: Response): Promise<T> {
  const text = await res.text().catch(() => '');
  let body: Answer<T> = {};
  try {
    body = JSON.parse(text) as Answer<T>;
  } catch {
    // A refusal of the gate is a sentence of plain text: it is the message.
  }
  if (res.ok && body.result !== undefined) return body.result;
  const said = body.error?.message ?? (text.trim() || `the page's server answered ${res.status} ${res.statusText}`);
  throw new ApiError(res.status, body.error?.code ?? res.status, said);
}

/** Where the session token is kept: this origin's local storage, shared by its tabs, not by other ports. */
const SESSION_KEY = 'memoryd-ui-session';

/** The Authorization header of an API request, when the page holds a session. */
function authorization(): Record<string, string> {
  const session = localStorage.getItem(SESSION_KEY);
  return session === null ? {} : { authorization: `Bearer ${session}` };
}

/**
 * Starts the page's session: when the address carries `#token=…` (the
 * printed one), takes it out of the address bar and swaps it for the
 * session token. A token used already is no failure when this browser
 * holds a session of this run from its first use (a second tab of the
 * same address); a session of an earlier run is dropped.
 */
export async function startSession(): Promise<void> {
  const token = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
  if (token === undefined) return;
  history.replaceState(null, '', '/');
  const res = await fetch('/api/session', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  try {
    localStorage.setItem(SESSION_KEY, (await answerOf<{ session: string }>(res)).session);
  } catch (err) {
    if (localStorage.getItem(SESSION_KEY) !== null && (await sessionHolds())) return;
    localStorage.removeItem(SESSION_KEY);
    throw err;
  }
}

/** Whether the session this browser holds is one the server takes. */
async function sessionHolds(): Promise<boolean> {
  const res = await fetch('/api/call', { method: 'POST', headers: { 'content-type': 'application/json', ...authorization() }, body: '{"method":"daemon.status","params":{}}' });
  return res.status !== 401;
}

/** POSTs JSON to one of the page server's routes, with the session. */
async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...authorization() }, body: JSON.stringify(body) });
  return answerOf<T>(res);
}

/** Calls one daemon method, as `memoryctl` would. */
export function call<M extends MethodDescriptor>(method: M['method'], params: ParamsOf<M>): Promise<ResultOf<M>> {
  return post<ResultOf<M>>('/api/call', { method, params });
}

/**
 * Downloads the export of `agentId` (undefined: everything): a ticket for
 * one download, then the browser's own download of it, streamed by the
 * server from one snapshot (a link cannot carry the session header).
 */
export async function download(agentId: string | undefined): Promise<void> {
  const { ticket } = await post<{ ticket: string }>('/api/export-ticket', agentId === undefined ? {} : { agentId });
  const link = document.createElement('a');
  link.href = `/api/export?ticket=${encodeURIComponent(ticket)}`;
  link.download = '';
  document.body.append(link);
  link.click();
  link.remove();
}

/** Progress of an upload: bytes sent of all. */
export interface UploadProgress {
  sent: number;
  total: number;
}

/**
 * Sends a file to `path` as the request body, telling `onProgress` as it
 * goes (XMLHttpRequest: fetch does not tell upload progress). The server
 * imports as the file arrives, so what is sent is what is being imported.
 */
export function upload<T>(path: string, file: File, onProgress: (p: UploadProgress) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('content-type', 'application/x-ndjson');
    for (const [name, value] of Object.entries(authorization())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => onProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onerror = () => reject(new ApiError(0, 'UI_NETWORK', 'the page\'s server could not be reached: is memoryctl ui still running?'));
    xhr.onload = () => {
      const res = new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText });
      answerOf<T>(res).then(resolve, reject);
    };
    xhr.send(file);
  });
}
