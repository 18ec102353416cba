import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A stand-in for memoryd that records each run, for counting and inspecting spawns. */
export interface FakeMemoryd {
  /** The JS entry to pass as `memorydBin` or MEMORYD_BIN. */
  bin: string;
  /** One entry per run so far: its arguments and working directory. */
  runs(): { argv: string[]; cwd: string }[];
}

/**
 * Writes `<dir>/memoryd-fake.mjs` (the name contains "memoryd", so cleanup
 * finds a lingering one by pid). Each run appends `{argv, cwd}` to a record
 * file, then exits 1 at once (`behaviour: 'exit'`, like a daemon that
 * cannot start) or idles for 20 s without listening (`'hang'`).
 */
export function fakeMemoryd(dir: string, behaviour: 'exit' | 'hang'): FakeMemoryd {
  const bin = join(dir, 'memoryd-fake.mjs');
  const record = join(dir, 'runs.jsonl');
  const tail = behaviour === 'exit' ? 'process.exit(1);' : 'setTimeout(() => process.exit(1), 20_000);';
  writeFileSync(
    bin,
    `import { appendFileSync } from 'node:fs';\n` +
      `appendFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');\n` +
      `${tail}\n`,
  );
  return {
    bin,
    runs: () =>
      existsSync(record)
        ? readFileSync(record, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { argv: string[]; cwd: string })
        : [],
  };
}
