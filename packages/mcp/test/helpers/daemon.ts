import { fileURLToPath } from 'node:url';
import { type DaemonHandle, daemonPaths, startDaemon as startRealDaemon } from '@memoryd/test-support';

/** The shim's committed bin (bundle when built, else the compiled dist). */
export const SHIM_BIN = fileURLToPath(new URL('../../bin/memoryd-mcp.js', import.meta.url));

/**
 * A real memoryd for a shim test (`--socket S --data-dir D --no-sync
 * --log-level warn`), tracked by pid, once its socket accepts (bounded by
 * `timeoutMs`): the shim suite needs no fsync and reads no daemon logs.
 */
export function startDaemon(paths = daemonPaths(), timeoutMs = 10_000): Promise<DaemonHandle> {
  return startRealDaemon({ ...paths, args: ['--no-sync'], logLevel: 'warn', timeoutMs });
}
