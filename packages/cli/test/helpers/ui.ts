// `memoryctl ui` for tests: the page's server as a child process on a test
// daemon's socket, the address it printed, and a Chromium to open it in.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
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
