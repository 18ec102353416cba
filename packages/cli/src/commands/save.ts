import { readFile } from 'node:fs/promises';
import { UsageError } from '@memoryd/client/args';
import { CheckpointSave } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { fileProblem } from '../file-problem.js';
import { json } from '../output.js';
import { readAll, sayReadingStdin } from '../stdin.js';

export const save: Command = {
  name: 'save',
  help: `Usage: memoryctl save AGENT [STATE_FILE | -] [--message-count N]

Saves a checkpoint of AGENT (checkpoint.save): a JSON object, read from
STATE_FILE, or from stdin when STATE_FILE is - or absent (at a terminal,
it says so first: type or paste the object, then Ctrl-D). Prints the new
checkpoint's id; memoryctl resume AGENT reads it back.

Options:
  --message-count N   how many messages the session had when saved
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { 'message-count': { type: 'string' } }, ['AGENT', 'STATE_FILE'], 1);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const [agentId, file] = a.positionals as [string, string | undefined];
    const countText = a.values['message-count'] as string | undefined;
    if (countText !== undefined && !/^\d+$/.test(countText)) throw new UsageError(`--message-count must be a whole number, got ${JSON.stringify(countText)}`);
    const messageCount = countText === undefined ? undefined : Number(countText);
    const from = file === undefined || file === '-' ? 'stdin' : file;
    let text: string;
    if (from === 'stdin') {
      sayReadingStdin(ctx, 'save', 'the state (a JSON object)', 'STATE_FILE');
      text = await readAll(ctx.stdin());
    } else {
      try {
        text = await readFile(from, 'utf8');
      } catch (err) {
        throw fileProblem('read', from, err, 'STATE_FILE');
      }
    }
    let state: unknown;
    try {
      state = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`the state in ${from} is not JSON: ${(err as Error).message}`);
    }
    if (typeof state !== 'object' || state === null || Array.isArray(state)) {
      throw new UsageError(`the state in ${from} must be a JSON object, got ${Array.isArray(state) ? 'an array' : state === null ? 'null' : typeof state}`);
    }
    const r = await ctx.client().call(CheckpointSave, { agentId, state: state as Record<string, unknown>, ...(messageCount === undefined ? {} : { messageCount }) });
    if (ctx.json) ctx.out(json(r));
    else ctx.out(`Saved checkpoint ${r.checkpointId} for agent ${JSON.stringify(agentId)}.`);
    return 0;
  },
};
