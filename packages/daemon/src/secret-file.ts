import { readFile, stat } from 'node:fs/promises';
import { DaemonError, DaemonErrorCodes } from './errors.js';
import type { Logger } from './logger.js';

/**
 * The first line of a file holding a secret (a PostgreSQL URL, an API
 * key), given by its flag so that the secret never shows in a process
 * listing. A file others may read is used, with a warning naming the
 * flag; an unreadable file is a usage error naming it. The secret itself
 * is never logged.
 */
export async function readSecretLine(file: string, flag: string, what: string, log: Logger): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
    if (((await stat(file)).mode & 0o077) !== 0) log.warn(`the ${what} file can be read by others; make it private (chmod 600)`, { file });
  } catch (err) {
    throw new DaemonError(DaemonErrorCodes.Usage, `cannot read ${flag} ${file}: ${(err as Error).message}`, { cause: err });
  }
  return text.split('\n')[0]!.trim();
}
