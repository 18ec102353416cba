import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DaemonHandle, spawnDaemon } from '@memoryd/test-support';

// Damage done to a stopped daemon's LevelDB files, as a disk or a bad copy
// would do it, and the `memoryd --verify` / `--repair` runs that follow.

/** The store's files, name to size. */
export function storeFiles(dataDir: string): Map<string, number> {
  const dir = join(dataDir, 'store');
  return new Map(readdirSync(dir).filter((name) => statSync(join(dir, name)).isFile()).map((name) => [name, statSync(join(dir, name)).size]));
}

/** Fails unless every file of `before` is still there (LOG and LOCK aside, which LevelDB rewrites), at least as large. */
export function assertNothingDeleted(before: Map<string, number>, after: Map<string, number>, what: string): void {
  for (const [name, size] of before) {
    if (name === 'LOG' || name === 'LOG.old' || name === 'LOCK') continue;
    assert.ok(after.has(name), `${what}: ${name} is still there`);
    assert.ok(after.get(name)! >= size, `${what}: ${name} was not cut`);
  }
}

/** The store's files whose names end with `suffix`, largest first. */
export function filesEnding(dataDir: string, suffix: string): string[] {
  return [...storeFiles(dataDir)].filter(([name]) => name.endsWith(suffix)).sort((a, b) => b[1] - a[1]).map(([name]) => join(dataDir, 'store', name));
}

/** Where `needle` occurs in a file: [file, offset] pairs over all the store's files with `suffix`. */
export function findInFiles(dataDir: string, suffix: string, needle: string | Buffer): Array<[string, number]> {
  const bytes = typeof needle === 'string' ? Buffer.from(needle, 'utf8') : needle;
  const found: Array<[string, number]> = [];
  for (const file of filesEnding(dataDir, suffix)) {
    const data = readFileSync(file);
    for (let at = data.indexOf(bytes); at >= 0; at = data.indexOf(bytes, at + 1)) found.push([file, at]);
  }
  return found;
}

/**
 * The offset of the first record header of a LevelDB log at or after
 * `from`, walking the headers from the start (7 bytes: checksum, length,
 * type; a block's last < 7 bytes are padding).
 */
export function recordStartingAfter(log: string, from: number): number {
  const data = readFileSync(log);
  const block = 32_768;
  for (let at = 0; at + 7 <= data.length; ) {
    if (block - (at % block) < 7) {
      at += block - (at % block);
      continue;
    }
    if (at >= from) return at;
    at += 7 + data.readUInt16LE(at + 4);
  }
  throw new Error(`no record header after byte ${from} of ${log}`);
}

/** Overwrites one byte of a file. */
export function setByte(file: string, offset: number, value: number): void {
  const data = readFileSync(file);
  data[offset] = value;
  writeFileSync(file, data);
}

/** Runs `memoryd --verify` or `--repair` on a data dir and waits (bounded) for it to exit. */
export async function runMemoryd(dataDir: string, flag: '--verify' | '--repair'): Promise<DaemonHandle> {
  return spawnDaemon({ dataDir, args: [flag], wait: 'exit', timeoutMs: 60_000, logLevel: null });
}

/** Starts a daemon that must refuse the data dir; returns its last stderr line. */
export async function refusedStart(socket: string, dataDir: string): Promise<string> {
  const d = await spawnDaemon({ socket, dataDir, wait: 'exit', timeoutMs: 10_000 });
  assert.deepEqual(d.exit(), { code: 1, signal: null }, d.stderr());
  assert.doesNotMatch(d.stderr(), /^\s+at /m, 'no stack trace on stderr');
  return d.lastStderrLine();
}
