import { dirname } from 'node:path';
import { UsageError } from '@memoryd/client/args';

/** The usual causes, in words (libuv's own are terse: `illegal operation on a directory`). */
const CAUSES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'a file of that name is in the way',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
};

/** What was being done to the file: the words after `cannot`. */
export type FileAction = 'read' | 'write' | 'create the directory';

/**
 * A file system's error at `path` as a usage error (exit 2: the path came
 * from the command line, and exit 1 is for the daemon's errors), said as
 * one sentence: `cannot read missing.jsonl: no such file`, with the
 * argument's name before the path when given (`cannot read STATE_FILE
 * x.json: …`). The error is kept as the cause. Anything that is not a file
 * system's error (it names no system call) is returned as it is.
 */
export function fileProblem(action: FileAction, path: string, err: unknown, argument?: string): unknown {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!(err instanceof Error) || typeof e?.code !== 'string' || typeof e.syscall !== 'string') return err;
  let cause = CAUSES[e.code] ?? /^[A-Z]+: ([^,]+)/.exec(e.message)?.[1] ?? e.code;
  // Writing (or making a directory) fails with ENOENT only when the directory it goes in is missing.
  if (e.code === 'ENOENT' && action !== 'read') cause = `no such directory ${dirname(path)}`;
  return new UsageError(`cannot ${action} ${argument === undefined ? '' : `${argument} `}${path}: ${cause}`, { cause: err });
}
