import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { exportToFile, writeExport } from '../export-file.js';

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
      await writeExport(ctx.client(), process.stdout, agentId);
      return 0;
    }
    const count = await exportToFile(ctx.client(), file, agentId);
    ctx.err(`memoryctl: exported ${count} records to ${file}`);
    return 0;
  },
};
