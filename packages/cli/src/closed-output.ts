/**
 * A reader that leaves early, as `memoryctl export | head -1` does, is not
 * an error of memoryctl's. A C program would die of SIGPIPE; Node ignores
 * that signal, so each write to the closed pipe fails with EPIPE instead,
 * and an `error` event nobody listens to crashes the process with a stack.
 * Here EPIPE on stdout (or stderr, as in `2>&1 | head`) only marks the
 * stream gone: later lines are dropped, a command that streams (export)
 * stops at its next write, and main exits 0 without a word, as `head`
 * expects of its writer and as `set -o pipefail` needs. A command that
 * changes things (service install) still finishes what it started.
 */

let watching = false;
let stdoutGone = false;

/** Listens for EPIPE on stdout and stderr, once per process (main may run more than once in one: the bundle's code cache). */
export function watchOutput(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    stdoutGone = true;
  });
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** Whether stdout's reader has gone: what is printed now reaches no one. */
export function isStdoutGone(): boolean {
  return stdoutGone;
}

/** True for the error a command ends with when stdout's reader has gone (a write waiting for it fails with EPIPE). */
export function endedByClosedStdout(err: unknown): boolean {
  return stdoutGone && (err as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}
