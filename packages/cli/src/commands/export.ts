import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { exportToFile, writeExport } from '../export-file.js';
import { count } from '../output.js';

export const exportCommand: Command = {
  name: 'export',
  help: `Usage: memoryctl export [--agent AGENT] [-o FILE]

Writes an export file: a header line, then every fact version and
checkpoint as JSON, one a line, read from one consistent snapshot while
the daemon serves. To stdout, or to FILE (written whole or not at all).
Import it with memoryctl import.

Options:
  --agent AGENT    only this agent's records
  -o, --output FILE  write to FILE instead of stdout
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { agent: { type: 'string' }, output: { type: 'string', short: 'o' } }, []);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const agentId = a.values['agent'] as string | undefined;
    const file = a.values['output'] as string | undefined;
    if (file === undefined) {
      // A reader that stops early (| head) ends this with EPIPE at the next write: main exits 0 (closed-output.ts).
      await writeExport(ctx.client(), process.stdout, agentId);
      return 0;
    }
    const records = await exportToFile(ctx.client(), file, agentId);
    ctx.err(`memoryctl: exported ${count(records, 'record')} to ${file}`);
    return 0;
  },
};
