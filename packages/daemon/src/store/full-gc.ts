import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's `gc()` without starting node with --expose-gc: the flag makes V8
 * install `gc` in contexts created after it is set, so a new context
 * hands it over (as jest does for --logHeapUsage). The daemon's own global
 * scope never gets one.
 */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc() after --expose-gc was set');
  return gc as () => void;
}

let gc: (() => void) | undefined;

/**
 * Runs a full, blocking, compacting garbage collection and returns how
 * long it took (ms): ~60 ms after loading 100,000 facts' index. For the
 * end of a burst that left much garbage behind (ADR 0013). A full
 * collection alone frees the garbage but keeps the pages it grew the old
 * generation by, each holding a few survivors; compacting moves the
 * survivors together so those pages go back to the system.
 */
export function collectGarbage(): number {
  gc ??= exposeGc();
  const started = performance.now();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  return performance.now() - started;
}
