import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { exportToFile } from '../export-file.js';
import { fileProblem } from '../file-problem.js';
import { count, json } from '../output.js';

export const backup: Command = {
  name: 'backup',
  help: `Usage: memoryctl backup DIR

Writes a consistent export of everything (one snapshot, while the daemon
serves) to DIR/memoryd-<UTC time>.jsonl, whole or not at all. DIR is made
(0700) when missing. To restore: start a daemon on a fresh data dir and
memoryctl import the file.
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['DIR']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [dir] = a.positionals as [string];
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw fileProblem('create the directory', dir, err);
    }
    const path = join(dir, `memoryd-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    const records = await exportToFile(ctx.client(), path, undefined);
    if (ctx.json) ctx.out(json({ path, records }));
    else ctx.out(`Backed up ${count(records, 'record')} to ${path}`);
    return 0;
  },
};
