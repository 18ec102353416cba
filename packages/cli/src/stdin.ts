import type { Readable } from 'node:stream';
import type { CommandContext } from './command.js';

/** Reads all of `stream` as UTF-8 text. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Before a command reads stdin at a terminal, one stderr line says what it
 * waits for and how to end it; without it, `memoryctl save alice` would
 * sit there without a word. Nothing is said when stdin is a pipe or a file.
 */
export function sayReadingStdin(ctx: CommandContext, command: string, what: string, argument: string): void {
  if (ctx.stdinIsTTY) ctx.err(`memoryctl ${command}: reading ${what} from stdin; end it with Ctrl-D, or give ${argument}`);
}
