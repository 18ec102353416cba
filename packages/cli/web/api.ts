// How the page reaches the daemon: through the page's server (memoryctl
// ui), one JSON call a request, with the session cookie the browser sends
// by itself. The types are the protocol's own.
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
  const body = (await res.json().catch(() => ({}))) as Answer<T>;
  if (res.ok && body.result !== undefined) return body.result;
  throw new ApiError(res.status, body.error?.code ?? res.status, body.error?.message ?? `the page's server answered ${res.status} ${res.statusText}`);
}

/** Calls one daemon method, as `memoryctl` would. */
export async function call<M extends MethodDescriptor>(method: M['method'], params: ParamsOf<M>): Promise<ResultOf<M>> {
  const res = await fetch('/api/call', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method, params }),
  });
  return answerOf<ResultOf<M>>(res);
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
    xhr.upload.onprogress = (e) => onProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onerror = () => reject(new ApiError(0, 'UI_NETWORK', 'the page\'s server could not be reached: is memoryctl ui still running?'));
    xhr.onload = () => {
      const res = new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText });
      answerOf<T>(res).then(resolve, reject);
    };
    xhr.send(file);
  });
}
