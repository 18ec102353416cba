import { join } from 'node:path';
import { Level } from 'level';
import { rootCause } from '../errors.js';
import { type Db, openSublevels } from '../store/level/db.js';
import { inspectStoreFiles } from '../store/level/level-files/inspect.js';
import { holdStoreLock } from '../store/level/level-files/store-lock.js';
import { verifyRecords } from '../store/level/verify.js';

/** What a maintenance command prints on: one line at a time, to stdout. */
export type Print = (line: string) => void;

/**
 * `memoryd --verify`: checks the store's files (as the daemon does before
 * opening them), then every record (store/level/verify.ts), holding the store's
 * lock throughout. Prints each problem as one line and a summary; returns
 * the exit code: 0 when nothing is damaged, 1 otherwise.
 */
export async function runVerify(dataDir: string, print: Print): Promise<number> {
  const storeDir = join(dataDir, 'store');
  if ((await inspectStoreFiles(storeDir)).state !== 'present') {
    print(`no store in ${dataDir}: nothing to verify`);
    return 0;
  }
  const lock = await holdStoreLock(storeDir, dataDir);
  try {
    const files = await inspectStoreFiles(storeDir);
    if (files.state !== 'present') {
      print(`no store in ${dataDir}: nothing to verify`);
      return 0;
    }
    for (const torn of files.tornTails) print(`note: ${torn.reason} (a write that was never acknowledged; LevelDB drops it)`);
    if (files.problems.length > 0) {
      for (const problem of files.problems) print(`damaged: ${problem.reason}`);
      print(`the store cannot be opened as it is: run memoryd --repair --data-dir ${JSON.stringify(dataDir)} (it copies the store first)`);
      return 1;
    }
    const db: Db = new Level<string, string>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    try {
      await db.open({ createIfMissing: false });
    } catch (err) {
      print(`damaged: LevelDB cannot open the store: ${rootCause(err)}`);
      print(`run memoryd --repair --data-dir ${JSON.stringify(dataDir)} (it copies the store first)`);
      return 1;
    }
    try {
      const subs = openSublevels(db);
      if ((await subs.meta.raw.get('layout')) === '1') {
        print('this store has no record checksums yet (layout 1): start memoryd once to add them, then verify again');
        return 0;
      }
      const findings = await verifyRecords(subs);
      for (const problem of findings.problems) print(`damaged: ${problem}`);
      const scope = `${findings.records} records of ${findings.agents} agents in ${storeDir}`;
      if (findings.problems.length === 0) {
        print(`verified ${scope}: nothing is damaged`);
        return 0;
      }
      print(`verified ${scope}: ${findings.problems.length} problems; memoryd --repair removes damaged records and rebuilds the rest (it copies the store first)`);
      return 1;
    } finally {
      await db.close();
    }
  } finally {
    await lock.release();
  }
}
