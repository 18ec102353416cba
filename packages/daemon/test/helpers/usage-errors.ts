import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type SpawnOptions, spawnDaemon } from '@memoryd/test-support';

/** A start the daemon refuses as a usage error: exit 2, with `reason` on its last stderr line. */
export async function assertUsageError(start: Pick<SpawnOptions, 'args' | 'env'>, reason: RegExp): Promise<void> {
  const d = await spawnDaemon({ ...start, wait: 'exit', timeoutMs: 5000 });
  assert.deepEqual(d.exit(), { code: 2, signal: null }, d.stderr());
  assert.match(d.lastStderrLine(), reason);
}

/** One test per bad command line (a name, the flags, the reason expected): each is a usage error. */
export function itRefusesAsUsage(bad: ReadonlyArray<[string, string[], RegExp]>): void {
  for (const [name, args, reason] of bad) {
    it(`${name} is a usage error (exit 2, one plain line)`, () => assertUsageError({ args }, reason));
  }
}
