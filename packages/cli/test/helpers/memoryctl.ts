import { spawn } from 'node:child_process';
import { cleanEnv, MEMORYCTL_BIN, trackPid, untrackPid, withTimeout } from '@memoryd/test-support';

export { MEMORYCTL_BIN };

/** How a memoryctl run ended, with what it printed. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `memoryctl ARGS` (stdin from `input` when given), bounded; never throws on a non-zero exit. */
export async function memoryctl(args: string[], options: { input?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<Run> {
  const child = spawn(process.execPath, [MEMORYCTL_BIN, ...args], { env: cleanEnv(options.env ?? {}), stdio: ['pipe', 'pipe', 'pipe'] });
  trackPid(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  child.stdin.end(options.input ?? '');
  const code = await withTimeout(
    new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c))),
    options.timeoutMs ?? 30_000,
    `memoryctl ${args.join(' ')}`,
  );
  untrackPid(child.pid!);
  return { code, stdout, stderr };
}
