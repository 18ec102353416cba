import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../logger.js';
import { ANALYSIS_VERSION } from '../../search/analyze.js';
import { checksumHolds, decodeImage, encodeImage } from '../../search/index-image.js';
import { ResidentIndex } from '../../search/resident-index.js';
import { readWholeFile } from './read-whole-file.js';

/**
 * What an image was made by: its layout and the analysis of its terms. An
 * image of another version is rebuilt, never read.
 */
export const ImageVersion = `index image 4, analysis ${ANALYSIS_VERSION}`;

/** A prefetched image no search has asked for is dropped after this long. */
const PREFETCH_KEEP_MS = 60_000;

/** What an image must match to stand for the agent's facts as the store has them. */
export interface ImageStamp {
  /** The agent's stamp (`!meta!stamp:<agentId>`), rewritten by every batch that changes its facts. */
  stamp: string;
  facts: number;
  length: number;
}

interface ImageMeta extends ImageStamp {
  version: string;
  agentId: string;
  index: Record<string, unknown>;
}

/**
 * The search index images in `<dataDir>/search`, one file per agent (named
 * by a hash of its id): how a restart gets every agent's index back in
 * milliseconds instead of analysing every fact again. An image counts
 * only when its stamp, fact count and length are the store's, its version
 * is this daemon's and its checksum holds; anything else is rebuilt. It is
 * written whole to a temporary file, synced, then renamed over the old
 * one, so a kill at any moment leaves the old image or the new one.
 */
export class IndexImages {
  readonly #dir: string;
  readonly #logger: Logger;
  /** The image being read ahead: its path and its bytes on the way (undefined if they cannot be read). */
  #prefetch: { path: string; bytes: Promise<Buffer | undefined>; timer: NodeJS.Timeout } | undefined;
  /** Bytes read ahead whose checksum was found to hold (checksumHolds), so load need not compute it again. */
  readonly #intact = new WeakSet<Buffer>();

  constructor(dataDir: string, logger: Logger) {
    this.#dir = join(dataDir, 'search');
    this.#logger = logger;
  }

  /** The image file of an agent. */
  path(agentId: string): string {
    return join(this.#dir, `${createHash('sha256').update(agentId).digest('hex').slice(0, 32)}.index`);
  }

  /** Whether the agent has an image (whatever it holds). */
  exists(agentId: string): boolean {
    return existsSync(this.path(agentId));
  }

  /**
   * Starts reading the most recently written image in the background: the
   * agent in use when the daemon last stopped is the likeliest to search
   * first after a start, and a large image takes a while to read (the 76 MB
   * of a million facts, some 150 ms here, in one read on the thread pool:
   * read-whole-file.ts), time the store's open can cover. One image only, so a
   * start does not read every agent's; dropped if no search asks for it
   * within a minute.
   */
  prefetchNewest(): void {
    let newest: { path: string; mtimeMs: number } | undefined;
    try {
      for (const name of readdirSync(this.#dir)) {
        if (!name.endsWith('.index')) continue;
        const path = join(this.#dir, name);
        const { mtimeMs } = statSync(path);
        if (newest === undefined || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
      }
    } catch {
      // No images (or none readable): a search reads or rebuilds as usual.
      return;
    }
    if (newest === undefined) return;
    const path = newest.path;
    // A failed read is the search's to meet again, and to log.
    const read = readWholeFile(path).catch(() => undefined);
    // Checked as soon as it is in, while the store's open waits on LevelDB
    // (the event loop is idle then), not after a search asks for it.
    const bytes = read.then((file) => {
      if (file !== undefined && checksumHolds(file)) this.#intact.add(file);
      return file;
    });
    this.#logger.debug('search index image read ahead', { path });
    const timer = setTimeout(() => {
      if (this.#prefetch?.path === path) this.#prefetch = undefined;
    }, PREFETCH_KEEP_MS);
    timer.unref();
    this.#prefetch = { path, bytes, timer };
  }

  /** The agent's image as read ahead, if it is the one {@link prefetchNewest} chose; given once. */
  async prefetched(agentId: string): Promise<Buffer | undefined> {
    const ahead = this.#prefetch;
    if (ahead === undefined || ahead.path !== this.path(agentId)) return undefined;
    this.#prefetch = undefined;
    clearTimeout(ahead.timer);
    return ahead.bytes;
  }

  /**
   * The agent's index from its image (`read`: its bytes, read ahead), if
   * there is one that matches `expected`; why not is logged.
   */
  load(agentId: string, expected: ImageStamp, read?: Buffer): ResidentIndex | undefined {
    const path = this.path(agentId);
    let file: Buffer;
    try {
      file = read ?? readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.#logger.warn('cannot read a search index image; rebuilding the index', { agentId, path, err });
      return undefined;
    }
    try {
      const snapshot = decodeImage(file, this.#intact.has(file));
      const meta = snapshot.meta as unknown as ImageMeta;
      const why =
        meta.version !== ImageVersion
          ? `made by ${JSON.stringify(meta.version)}`
          : meta.agentId !== agentId
            ? 'of another agent'
            : meta.stamp !== expected.stamp || meta.facts !== expected.facts || meta.length !== expected.length
              ? 'older than the store (facts changed after it was written)'
              : undefined;
      if (why !== undefined) {
        this.#logger.info('search index image out of date; rebuilding the index', { agentId, why });
        return undefined;
      }
      const index = ResidentIndex.restore({ meta: meta.index, arrays: snapshot.arrays });
      if (index.facts !== expected.facts || index.length !== expected.length) throw new Error(`it holds ${index.facts} facts of length ${index.length}`);
      return index;
    } catch (err) {
      this.#logger.warn('search index image damaged; rebuilding the index', { agentId, path, err });
      return undefined;
    }
  }

  /**
   * Writes the agent's image (synchronously: the index must not change
   * while it is written). `sync` (at a stop) makes it survive a power loss
   * too; without (an index sent back to its image while the daemon runs,
   * often), a power loss may leave the old image or a torn one, which the
   * stamp or the checksum catches at the next start: a rebuild, never a
   * wrong answer.
   */
  save(agentId: string, index: ResidentIndex, stamp: string, sync = true): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const path = this.path(agentId);
    const temp = `${path}.tmp`;
    const snapshot = index.snapshot();
    const meta: ImageMeta = { version: ImageVersion, agentId, stamp, facts: index.facts, length: index.length, index: snapshot.meta };
    const chunks = encodeImage({ meta: meta as unknown as Record<string, unknown>, arrays: snapshot.arrays });
    const fd = openSync(temp, 'w', 0o600);
    try {
      for (const chunk of chunks) for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    if (sync) this.#syncDir();
  }

  /** Removes the agent's image (it has no facts left). */
  remove(agentId: string): void {
    rmSync(this.path(agentId), { force: true });
  }

  /** Removes every image but those of `keep`, and any temporary file a kill left. */
  prune(keep: Iterable<string>): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    const kept = new Set([...keep].map((agentId) => this.path(agentId)));
    for (const name of names) {
      const path = join(this.#dir, name);
      if (!kept.has(path)) rmSync(path, { force: true });
    }
  }

  #syncDir(): void {
    try {
      const fd = openSync(this.#dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Not every platform syncs a directory; the rename stands either way.
    }
  }
}
