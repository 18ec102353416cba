import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { Exit } from '../exit-codes.js';
import { type ImportProgress, importSource, importStream } from '../import-file.js';
import { count, json } from '../output.js';
import { sayReadingStdin } from '../stdin.js';

/** A progress bar on stderr with the rate and time left, only on a terminal; nothing otherwise. */
async function progressBar(onTTY: boolean): Promise<{ update(p: ImportProgress): void; stop(): void }> {
  if (!onTTY) return { update: () => {}, stop: () => {} };
  const { default: progress } = await import('cli-progress');
  const started = Date.now();
  const bar = new progress.SingleBar(
    { format: 'importing [{bar}] {percentage}% | {records} records | {rate} records/s | ETA {eta_formatted}', stream: process.stderr, hideCursor: true },
    progress.Presets.shades_classic,
  );
  bar.start(100, 0, { records: 0, rate: 0 });
  return {
    update: (p) => {
      const seconds = Math.max(0.001, (Date.now() - started) / 1000);
      const share = p.totalBytes === undefined || p.totalBytes === 0 ? 0 : Math.min(100, (100 * p.bytes) / p.totalBytes);
      bar.update(Math.floor(share), { records: p.records, rate: Math.round(p.records / seconds) });
    },
    stop: () => bar.stop(),
  };
}

export const importCommand: Command = {
  name: 'import',
  help: `Usage: memoryctl import [FILE]

Imports an export file (from memoryctl export or backup), or stdin without
FILE (at a terminal, it says so first): 1,000 records a call, ids and
times kept. A record the agent already has is skipped, so importing a
file twice adds nothing. Each line that is not taken is reported on
stderr as "line N: REASON" and the rest is imported; the exit code is
then 1. A file that cannot be read is a usage error (exit 2). A progress
bar with the rate and the time left shows on a terminal.
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, {}, ['FILE'], 1);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [file] = a.positionals as [string | undefined];
    const { stream, size } = await importSource(file, ctx.stdin);
    if (file === undefined) sayReadingStdin(ctx, 'import', 'an export file', 'FILE');
    const bar = await progressBar(ctx.stderrIsTTY && size !== undefined);
    let outcome;
    try {
      outcome = await importStream(ctx.client(), stream, (p) => bar.update(p), size);
    } finally {
      bar.stop();
    }
    for (const r of outcome.rejected) ctx.err(`line ${r.line}: ${r.reason}`);
    if (ctx.json) ctx.out(json(outcome));
    else ctx.out(`Imported ${count(outcome.imported, 'record')}, skipped ${outcome.skipped} already there, rejected ${outcome.rejected.length}.`);
    return outcome.rejected.length === 0 ? 0 : Exit.failed;
  },
};
