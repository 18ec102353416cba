import type { StoreConfig } from './store-config.js';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';
import { readSecretLine } from '../secret-file.js';
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
  const url = await readSecretLine(file, '--pg-url-file', 'PostgreSQL URL', log);
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new DaemonError(DaemonErrorCodes.Usage, `--pg-url-file ${file} must hold a postgresql:// URL on its first line`);
  }
  return url;
}

/** Opens the store the configuration chooses (ADR 0027): LevelDB in the data dir, or PostgreSQL. */
export async function openConfiguredStore(config: StoreConfig, log: Logger): Promise<MemoryStore> {
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
