import type { PgTimeouts } from './postgres/pg-connections.js';

/** The store backends --store chooses from. */
export const StoreKinds = ['level', 'postgres'] as const;
/** A store backend. */
export type StoreKind = (typeof StoreKinds)[number];

/**
 * What the agents' search indexes may take in memory together, by
 * default (--index-memory), on either backend: past it the least recently
 * used go (to their images on LevelDB, to be read again on PostgreSQL).
 */
export const DEFAULT_INDEX_MEMORY_BYTES = 128 * 1024 * 1024;

/** What opening the configured store needs of the daemon's configuration. */
export interface StoreConfig {
  /** The backend (ADR 0027): LevelDB in the data dir, or a PostgreSQL database. */
  store: StoreKind;
  /** Data directory; LevelDB lives in `<dataDir>/store`. */
  dataDir: string;
  /** Acknowledge writes only once LevelDB has synced them to disk. */
  sync: boolean;
  /** Idle time after which an export cursor expires. */
  exportCursorTtlMs: number;
  /** What the agents' search indexes may take in memory before the least recently used go, in bytes. */
  indexMemoryBytes: number;
  /** PostgreSQL only: a file holding the connection URL; otherwise the PG* variables say where. */
  pgUrlFile: string | undefined;
  /** PostgreSQL only: how long to wait for the server. */
  pgTimeouts: PgTimeouts;
}
