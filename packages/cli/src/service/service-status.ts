// `memoryctl service status`: what is installed (and whether it is what
// install would write now), what the service manager says of it, and
// whether a daemon answers on its socket. Reads only: it never starts the
// daemon, so under socket activation it connects only when the service runs.
import { readFile } from 'node:fs/promises';
import { LAUNCHD_LABEL } from './launchd-plist.js';
import type { ServiceDefinition } from './service-plan.js';
import { runCommand } from './service-run.js';
import { SERVICE_UNIT, SOCKET_UNIT } from './systemd-units.js';

/** One file of the definition as found on disk. */
export interface FileState {
  path: string;
  installed: boolean;
  /** Its content is what install would write now (false after an upgrade of memoryd or node until install runs again). */
  current: boolean;
}

/** What the service manager says: systemd's unit states, or launchd's job. */
export type ManagerState =
  | { target: 'systemd'; socketEnabled: string; socketActive: string; serviceActive: string; error?: string }
  | { target: 'launchd'; loaded: boolean; state: string; pid: number | null; error?: string };

export interface ServiceState {
  files: FileState[];
  installed: boolean;
  current: boolean;
  manager: ManagerState;
}

async function fileState(path: string, content: string): Promise<FileState> {
  try {
    const found = await readFile(path, 'utf8');
    return { path, installed: true, current: found === content };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, installed: false, current: false };
    throw err;
  }
}

/** First line of what a command printed, trimmed. */
const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';

async function systemdState(env: NodeJS.ProcessEnv): Promise<ManagerState> {
  const ask = (...args: string[]) => runCommand(['systemctl', '--user', ...args], env);
  // is-enabled and is-active print the state and exit non-zero for any but "enabled"/"active".
  const [enabled, socketActive, serviceActive] = await Promise.all([ask('is-enabled', SOCKET_UNIT), ask('is-active', SOCKET_UNIT), ask('is-active', SERVICE_UNIT)]);
  const state: ManagerState = {
    target: 'systemd',
    socketEnabled: firstLine(enabled.stdout) || 'unknown',
    socketActive: firstLine(socketActive.stdout) || 'unknown',
    serviceActive: firstLine(serviceActive.stdout) || 'unknown',
  };
  const failed = [enabled, socketActive, serviceActive].find((r) => r.stdout.trim() === '' && r.code !== 0);
  if (failed !== undefined) state.error = firstLine(failed.stderr) || `systemctl exited with ${failed.code}`;
  return state;
}

async function launchdState(env: NodeJS.ProcessEnv, uid: number): Promise<ManagerState> {
  const ran = await runCommand(['launchctl', 'print', `gui/${uid}/${LAUNCHD_LABEL}`], env);
  if (ran.code === 127) return { target: 'launchd', loaded: false, state: 'unknown', pid: null, error: ran.stderr };
  if (ran.code !== 0) return { target: 'launchd', loaded: false, state: 'not loaded', pid: null };
  const state = /^\s*state = (.+)$/m.exec(ran.stdout)?.[1]?.trim() ?? 'unknown';
  const pid = /^\s*pid = (\d+)$/m.exec(ran.stdout)?.[1];
  return { target: 'launchd', loaded: true, state, pid: pid === undefined ? null : Number(pid) };
}

/** The service's state as found: files, then the manager. */
export async function serviceState(def: ServiceDefinition, env: NodeJS.ProcessEnv, uid: number): Promise<ServiceState> {
  const files = await Promise.all(def.files.map((f) => fileState(f.path, f.content)));
  const manager = def.target === 'systemd' ? await systemdState(env) : await launchdState(env, uid);
  return {
    files,
    installed: files.some((f) => f.installed),
    current: files.every((f) => f.current),
    manager,
  };
}

/** Whether connecting to the socket could start the daemon (systemd listens, the service is not running): status must not. */
export function connectingWouldStart(manager: ManagerState): boolean {
  return manager.target === 'systemd' && manager.socketActive === 'active' && manager.serviceActive !== 'active';
}
