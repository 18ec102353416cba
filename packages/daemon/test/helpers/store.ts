import assert from 'node:assert/strict';
import { after } from 'node:test';
import { join } from 'node:path';
import { Level } from 'level';
import { DaemonError, type DaemonErrorCode, type LevelStore, type Logger, type MemoryStore, openStore, silentLogger } from '@memoryd/daemon';
import type { ExportRecord } from '@memoryd/protocol';
import { cleanupAll, tempDir } from '@memoryd/test-support';
import { sealValue } from './seal.js';

// Store tests run the real store on a real LevelDB in a temp dir, through
// the package's public openStore: no mocks.

const opened = new Set<MemoryStore>();

/** Options for {@link openTempStore}. */
export interface TempStoreOptions {
  /** Reuse this data dir (reopen); a fresh temp dir otherwise. */
  dataDir?: string;
  exportCursorTtlMs?: number;
  /** What the search indexes may take in memory before the least recently used go back to their images. */
  indexMemoryBytes?: number;
  /** How long a stop may spend writing index images. */
  stopImagesMs?: number;
  /** Where the store logs (silent by default). */
  logger?: Logger;
}

/** Opens a store (sync on, as the daemon's default) in a temp data dir. */
export async function openTempStore(opts: TempStoreOptions = {}): Promise<{ store: LevelStore; dataDir: string }> {
  const dataDir = opts.dataDir ?? tempDir('mds-');
  const store = await openStore({
    dataDir,
    sync: true,
    logger: opts.logger ?? silentLogger,
    ...(opts.exportCursorTtlMs === undefined ? {} : { exportCursorTtlMs: opts.exportCursorTtlMs }),
    ...(opts.indexMemoryBytes === undefined ? {} : { indexMemoryBytes: opts.indexMemoryBytes }),
    ...(opts.stopImagesMs === undefined ? {} : { stopImagesMs: opts.stopImagesMs }),
  });
  opened.add(store);
  return { store, dataDir };
}

/** Closes a store and opens it again on the same data dir. */
export async function reopen(store: MemoryStore, dataDir: string, opts: TempStoreOptions = {}): Promise<LevelStore> {
  await store.close();
  opened.delete(store);
  return (await openTempStore({ ...opts, dataDir })).store;
}

/** Registers an `after` hook closing every store of the file and deleting temp dirs. */
export function useStoreCleanup(): void {
  after(async () => {
    for (const store of opened) await store.close();
    opened.clear();
    await cleanupAll();
  });
}

/** Awaits a rejection with a DaemonError of `code` and returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: DaemonErrorCode): Promise<DaemonError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof DaemonError, `expected a DaemonError, got ${String(err)}`);
    assert.equal(err.code, code, `expected ${code}, got ${err.code}: ${err.message}`);
    return err;
  }
  assert.fail(`expected a rejection with ${code}`);
}

/**
 * Overwrites, with a closed store, the value of every LevelDB key that
 * contains `id` (as plain text) with `garbage`, using a raw Level handle:
 * sealed (helpers/seal.ts), as if written by a bug, unless `sealed` is
 * false, as if damaged on disk. Returns how many keys it changed.
 */
export async function corruptRecords(dataDir: string, id: string, garbage: string, sealed = true): Promise<number> {
  const db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    // The record's own key: a dedup claim names the fact too (`!dedup!<agent>\0<hash>\0<id>`).
    const keys = (await db.keys().all()).filter((k) => k.includes(id) && !k.startsWith('!dedup!'));
    for (const key of keys) await db.put(key, sealed ? sealValue(key, garbage) : garbage);
    return keys.length;
  } finally {
    await db.close();
  }
}

/** The records of an export from its first page on, page by page (bounded). */
export async function exportRest(store: MemoryStore, first: { records: ExportRecord[]; cursor?: string }): Promise<ExportRecord[]> {
  const records = [...first.records];
  let cursor = first.cursor;
  for (let pages = 0; cursor !== undefined; pages++) {
    assert.ok(pages < 100_000, 'admin.export never ended');
    const page = await store.exportPage({ cursor });
    records.push(...page.records);
    cursor = page.cursor;
  }
  return records;
}

/** Every record of an export, page by page. */
export async function exportAll(store: MemoryStore, params: { agentId?: string; limit?: number } = {}): Promise<ExportRecord[]> {
  return exportRest(store, await store.exportPage(params));
}
