import { readFile, stat } from 'node:fs/promises';
import type { DaemonConfig } from '../config.js';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';
import { DAEMON_VERSION } from '../version.js';
import type { MemoryStore } from './memory-store.js';
import { openPostgresStore } from './postgres/pg-store.js';
import { openStore } from './level/supervised-store.js';

/**
 * The connection URL in `file` (its first line), for --pg-url-file: a
 * password in it never shows in a process listing. A file others may
 * read is used, with a warning.
 */
async function readPgUrl(file: string, log: Logger): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
    if (((await stat(file)).mode & 0o077) !== 0) log.warn('the PostgreSQL URL file can be read by others; make it private (chmod 600)', { file });
  } catch (err) {
    throw new DaemonError(DaemonErrorCodes.Usage, `cannot read --pg-url-file ${file}: ${(err as Error).message}`, { cause: err });
  }
  const url = text.split('\n')[0]!.trim();
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new DaemonError(DaemonErrorCodes.Usage, `--pg-url-file ${file} must hold a postgresql:// URL on its first line`);
  }
  return url;
}

/** Opens the store the configuration chooses (ADR 0027): LevelDB in the data dir, or PostgreSQL. */
export async function openConfiguredStore(config: DaemonConfig, log: Logger): Promise<MemoryStore> {
  if (config.store === 'postgres') {
    const connection = config.pgUrlFile === undefined ? {} : { connectionString: await readPgUrl(config.pgUrlFile, log) };
    return openPostgresStore({ connection, daemonVersion: DAEMON_VERSION, logger: log, exportCursorTtlMs: config.exportCursorTtlMs, timeouts: config.pgTimeouts, indexMemoryBytes: config.indexMemoryBytes });
  }
  return openStore({
    dataDir: config.dataDir,
    sync: config.sync,
    logger: log,
    exportCursorTtlMs: config.exportCursorTtlMs,
    indexMemoryBytes: config.indexMemoryBytes,
  });
}
