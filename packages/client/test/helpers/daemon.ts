import { type DaemonHandle, type SpawnOptions, startDaemon as startRealDaemon } from '@memoryd/test-support';

/**
 * A real memoryd for a client test (`--socket S --data-dir D`, defaults in
 * a fresh temp dir), tracked by pid, once its socket accepts: test-support's
 * startDaemon with `--log-level warn`, as the client suite reads no daemon
 * logs.
 */
export function startDaemon(opts: Pick<SpawnOptions, 'socket' | 'dataDir' | 'args'> = {}): Promise<DaemonHandle> {
  return startRealDaemon({ ...opts, logLevel: 'warn' });
}
