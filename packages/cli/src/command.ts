import type { Readable } from 'node:stream';
import type { DaemonClient, DaemonClientOptions } from '@memoryd/client';

/** What a command gets: its own arguments, the daemon, and where to print. */
export interface CommandContext {
  /** The command's arguments, after the command word. */
  argv: string[];
  /** `--json`: exactly one JSON document on stdout (export aside, which writes its file format). */
  json: boolean;
  /** The daemon, connected (and autostarted) on first use. */
  client(): DaemonClient;
  /** Where the daemon is, as the connection flags and environment say (socket and data dir only when chosen). */
  connection: DaemonClientOptions;
  /** Writes a line (or lines) to stdout. */
  out(text: string): void;
  /** Writes a line to stderr. */
  err(text: string): void;
  /** Whether stderr is a terminal (progress bars go there, and only then). */
  stderrIsTTY: boolean;
  /** Whether stdin is a terminal (a command that reads it says so first: someone is typing, not piping). */
  stdinIsTTY: boolean;
  /** Standard input, opened on first use. */
  stdin(): Readable;
}

/** One memoryctl command. */
export interface Command {
  /** The command word. */
  name: string;
  /** Its own `--help`: usage, arguments, options. */
  help: string;
  /** Runs it; resolves with the exit code (0 done, 1 the daemon answered with an error or lines were rejected). */
  run(ctx: CommandContext): Promise<number>;
}
