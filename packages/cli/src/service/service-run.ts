// Performs the steps of service-plan.ts: writes and removes the files, runs
// the service manager's commands. An install that fails part way puts back
// every file it wrote as it was before, so a failed install leaves nothing
// behind; an uninstall goes on past a manager command that fails (it is
// there to remove what is half installed) and reports it.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Step } from './service-plan.js';

/** Bound on one service manager command. */
const MANAGER_TIMEOUT_MS = 30_000;

/** How a command ended: its exit code (127 when it could not be run) and output. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `argv` (no shell), bounded; never throws. */
export function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { env, timeout: MANAGER_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
      if (e.code === 'ENOENT') return resolve({ code: 127, stdout, stderr: `${argv[0]}: not found on PATH` });
      if (e.killed) return resolve({ code: 124, stdout, stderr: `${stderr}${argv[0]}: no answer within ${MANAGER_TIMEOUT_MS / 1000} s` });
      resolve({ code: typeof e.code === 'number' ? e.code : 1, stdout, stderr: stderr || e.message });
    });
  });
}

/** A step that failed, with what the command said. */
export class ServiceStepError extends Error {
  override readonly name = 'ServiceStepError';
}

/** What performing a plan needs from its caller. */
export interface StepHooks {
  env: NodeJS.ProcessEnv;
  /** Stops a daemon on `socket` the service manager did not start; says what it did, if anything. */
  stopOtherDaemon(socket: string): Promise<string | undefined>;
  /** One line of progress or warning for people (stderr). */
  note(line: string): void;
}

/** `argv` as a person would type it. */
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

async function previousContent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes `content` to `path` through a temporary file and a rename, so the file is never half written. */
async function writeWhole(path: string, content: string): Promise<void> {
  const tmp = `${path}.memoryctl-${process.pid}`;
  await writeFile(tmp, content, { mode: 0o644 });
  await rename(tmp, path);
}

/**
 * Performs an install's steps. On a failure, the files written are put
 * back as they were (removed when they were not there) and the error says
 * which step failed and what the command printed.
 */
export async function performInstall(steps: readonly Step[], hooks: StepHooks): Promise<void> {
  const undo: Array<() => Promise<void>> = [];
  try {
    for (const step of steps) {
      if (step.kind === 'mkdir') {
        await mkdir(step.path, { recursive: true, mode: step.mode });
      } else if (step.kind === 'write') {
        const before = await previousContent(step.path);
        undo.push(() => (before === undefined ? rm(step.path, { force: true }) : writeWhole(step.path, before)));
        await writeWhole(step.path, step.content);
        hooks.note(`wrote ${step.path}`);
      } else if (step.kind === 'remove') {
        await rm(step.path, { force: true });
      } else if (step.kind === 'stop-other-daemon') {
        const stopped = await hooks.stopOtherDaemon(step.socket);
        if (stopped !== undefined) hooks.note(stopped);
      } else {
        const ran = await runCommand(step.argv, hooks.env);
        if (ran.code !== 0) {
          const why = `${commandLine(step.argv)} failed (exit ${ran.code}): ${ran.stderr.trim() || ran.stdout.trim() || 'no output'}`;
          if (step.tolerate) hooks.note(`note: ${why}`);
          else throw new ServiceStepError(why);
        } else hooks.note(`ran ${commandLine(step.argv)}`);
      }
    }
  } catch (err) {
    for (const put of undo.reverse()) await put();
    if (undo.length > 0) hooks.note('install failed: the files it wrote are back as they were');
    throw err;
  }
}

/**
 * Performs an uninstall's steps. Manager commands marked `tolerate` that
 * fail are noted and the rest goes on; returns the failures of the others.
 */
export async function performUninstall(steps: readonly Step[], hooks: StepHooks): Promise<string[]> {
  const failures: string[] = [];
  for (const step of steps) {
    if (step.kind === 'remove') {
      const existed = (await previousContent(step.path)) !== undefined;
      await rm(step.path, { force: true });
      hooks.note(existed ? `removed ${step.path}` : `${step.path} was not there`);
    } else if (step.kind === 'run') {
      const ran = await runCommand(step.argv, hooks.env);
      if (ran.code === 0) hooks.note(`ran ${commandLine(step.argv)}`);
      else {
        const why = `${commandLine(step.argv)} failed (exit ${ran.code}): ${ran.stderr.trim() || ran.stdout.trim() || 'no output'}`;
        if (step.tolerate) hooks.note(`note: ${why}`);
        else failures.push(why);
      }
    }
  }
  return failures;
}
