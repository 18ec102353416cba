import { join } from 'node:path';
import { after, before } from 'node:test';
import { cleanupAll, type DaemonHandle, tempDir } from '@memoryd/test-support';
import { startDaemon } from './daemon.js';
import { inProcess, type InProcessOptions, type Session } from './mcp.js';

/** A real daemon and an in-process session with the shim against it. */
export interface DaemonSession {
  daemon: DaemonHandle;
  s: Session;
}

/**
 * Registers, in the calling describe block, a `before` that starts a real
 * daemon and an in-process session to it (with `opts`) and hands both to
 * `ready`, and an `after` that closes the session, stops the daemon and
 * runs {@link cleanupAll}.
 */
export function useDaemonSession(ready: (started: DaemonSession) => void, opts: Omit<InProcessOptions, 'socket'> = {}): void {
  let daemon: DaemonHandle | undefined;
  let s: Session | undefined;
  before(async () => {
    daemon = await startDaemon();
    s = await inProcess({ ...opts, socket: daemon.socket });
    ready({ daemon, s });
  });
  after(async () => {
    await s?.close();
    await daemon?.stop();
    await cleanupAll();
  });
}

/** An in-process session with the shim, configured for a socket nothing serves. */
export interface AbsentDaemonSession {
  socket: string;
  s: Session;
}

/**
 * Registers, in the calling describe block, a `before` that opens an
 * in-process session (no autostart) for `<fresh temp dir>/<socketName>`,
 * where no daemon runs, and hands it to `ready`, and an `after` that closes
 * it and runs {@link cleanupAll}.
 */
export function useSessionWithoutDaemon(ready: (started: AbsentDaemonSession) => void, socketName: string): void {
  let s: Session | undefined;
  before(async () => {
    const socket = join(tempDir(), socketName);
    s = await inProcess({ socket });
    ready({ socket, s });
  });
  after(async () => {
    await s?.close();
    await cleanupAll();
  });
}
