// `memoryctl ui` for tests: the page's server as a child process on a test
// daemon's socket, the address it printed, and a Chromium to open it in.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { cleanEnv, MEMORYCTL_BIN, trackPid, untrackPid, waitFor, withTimeout } from '@memoryd/test-support';

/** A running `memoryctl ui`. */
export interface UiProcess {
  child: ChildProcessWithoutNullStreams;
  /** The printed address, with its one-time token. */
  url: string;
  /** `http://NAME.localhost:PORT` (or `http://127.0.0.1:PORT`). */
  origin: string;
  /** `NAME.localhost:PORT`, what Host headers must say. */
  host: string;
  port: number;
  token: string;
  stdout(): string;
  stderr(): string;
  /** Ctrl-C (SIGINT), then waits (bounded) for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `memoryctl ui --no-open` against `socket` and waits (bounded) for the address it prints. */
export function startUi(socket: string, args: string[] = []): Promise<UiProcess> {
  return spawnUi([process.execPath, MEMORYCTL_BIN, 'ui', '--no-open', '--socket', socket, '--no-autostart', ...args], { env: cleanEnv() });
}

/** Runs `argv` (a memoryctl ui command line: any memoryctl, an installed one too) and waits (bounded) for the address it prints. */
export async function spawnUi(argv: string[], options: { env: Record<string, string>; cwd?: string }): Promise<UiProcess> {
  const child = spawn(argv[0]!, argv.slice(1), { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  trackPid(child.pid!);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(() => /http:\/\/\S+/.test(out) || child.exitCode !== null, 20_000, `memoryctl ui to print its address (stderr: ${err})`);
  const url = /http:\/\/\S+/.exec(out)?.[0];
  if (url === undefined) throw new Error(`memoryctl ui exited ${child.exitCode}: ${err}`);
  const parsed = new URL(url);
  return {
    child,
    url,
    origin: parsed.origin,
    host: parsed.host,
    port: Number(parsed.port),
    token: /^#token=(.+)$/.exec(parsed.hash)?.[1] ?? '',
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await withTimeout(exited, 10_000, 'memoryctl ui to stop on SIGINT');
      untrackPid(child.pid!);
      return code;
    },
  };
}

/* ------------------------------------------------ raw HTTP to the page */

/** A raw HTTP answer. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request, all of it optional. */
export interface Ask {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sends the body in pieces without a Content-Length (chunked), as a streaming client would. */
  chunked?: boolean;
}

/** Where a request goes: the page server's port, and the Host it names unless the request says another. */
export interface Target {
  port: number;
  host: string;
}

/** One raw HTTP request to the page's port on 127.0.0.1 (or `ip`): any Host, any header, bounded. */
export function ask({ port, host }: Target, { method = 'GET', path = '/', headers = {}, body, chunked = false }: Ask, ip = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // The server may answer (413) and close before the whole body is sent; but an answer must come.
    const bound = setTimeout(() => reject(new Error(`${method} ${path} got no answer in 30 s`)), 30_000);
    const req = httpRequest({ host: ip, port, method, path, headers: { host, ...headers }, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => {
        clearTimeout(bound);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} got no answer in 20 s`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return;
      clearTimeout(bound);
      reject(err);
    });
    if (body !== undefined && chunked) {
      const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
      for (let at = 0; at < buf.length; at += 1 << 20) req.write(buf.subarray(at, at + (1 << 20)));
    } else if (body !== undefined) {
      req.setHeader('content-length', Buffer.byteLength(body));
      req.write(body);
    }
    req.end();
  });
}

/** Debian's Chromium or another on the PATH (MEMORYD_CHROMIUM names one), or undefined. */
export function findChromium(): string | undefined {
  const named = process.env['MEMORYD_CHROMIUM'];
  if (named !== undefined && named !== '') return named;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

/** Why the browser tests skip, when they do. */
export const NO_CHROMIUM = 'no Chromium found (install Debian\'s chromium package, or set MEMORYD_CHROMIUM to a Chromium binary; .ci/run installs it)';
