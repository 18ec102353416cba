import { spawn } from 'node:child_process';
import { AdminReembed, DaemonStatus, type ResultOf } from '@memoryd/protocol';
import { locateMemoryd } from '@memoryd/client';
import { UsageError } from '@memoryd/client/args';
import type { Command, CommandContext } from '../command.js';
import { commandArgs } from '../args.js';
import { count, json, pairs } from '../output.js';
import { didYouMean } from '../suggest.js';

type Embeddings = NonNullable<ResultOf<typeof DaemonStatus>['embeddings']>;

/** Between two looks at the daemon's state while waiting. */
const POLL_MS = 500;

/** How long `rebuild --wait` waits without a fact embedded before it gives up, by default. */
const WAIT_TIMEOUT_S = 120;

/** The state's lines, or the sentence saying meaning search is off. */
function describe(e: Embeddings | undefined): string {
  if (e === undefined) {
    return 'memoryd runs without an embedder: search is by words only. Start it with --embedder ollama, openai or local (docs/embeddings.md).';
  }
  const lines: Array<[string, string | number]> = [
    ['embedder', e.embedder],
    ['model', e.model],
    ['dimensions', e.dimensions === 0 ? 'not known yet' : e.dimensions],
    ['pending', e.pending],
    ['last error', e.lastError === undefined ? 'none' : `${e.lastError}${e.lastErrorAt === undefined ? '' : ` (at ${e.lastErrorAt})`}`],
  ];
  if (e.stopped === true) lines.push(['stopped', 'yes: restart memoryd with another configuration, or run memoryctl embeddings rebuild']);
  return pairs(lines);
}

/**
 * Waits until every fact is embedded, saying the count on stderr as it
 * falls (and each new error once). Ends with an error when the queue
 * stops, or when no fact was embedded for `timeoutS` seconds.
 */
async function waitEmbedded(ctx: CommandContext, timeoutS: number): Promise<Embeddings | undefined> {
  let lastError: string | undefined;
  let least = Infinity;
  let progressAt = Date.now();
  for (let said = 0; ; ) {
    const { embeddings } = await ctx.client().call(DaemonStatus, {});
    if (embeddings === undefined || embeddings.pending === 0) return embeddings;
    if (embeddings.stopped === true) {
      throw new Error(`the embedder stopped: ${embeddings.lastError ?? 'no cause given'}; ${count(embeddings.pending, 'fact was', 'facts were')} not embedded`);
    }
    if (embeddings.lastError !== undefined && embeddings.lastError !== lastError) ctx.err(`memoryctl: the embedder fails, still waiting: ${embeddings.lastError}`);
    lastError = embeddings.lastError;
    if (embeddings.pending < least) {
      least = embeddings.pending;
      progressAt = Date.now();
    } else if (Date.now() - progressAt >= timeoutS * 1000) {
      const cause = lastError === undefined ? '' : `; the embedder fails: ${lastError}`;
      throw new Error(`no fact embedded for ${timeoutS} s, ${embeddings.pending} still to embed${cause}`);
    }
    if (Date.now() - said >= 5_000 || ctx.stderrIsTTY) {
      if (ctx.stderrIsTTY) process.stderr.write(`\r${embeddings.pending.toLocaleString('en-US')} ${embeddings.pending === 1 ? 'fact' : 'facts'} to embed \x1b[K`);
      else ctx.err(`${count(embeddings.pending, 'fact')} to embed`);
      said = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Runs `memoryd --fetch-model` in this terminal: the daemon owns the model table and the cache. */
function fetchModel(ctx: CommandContext, model: string | undefined): Promise<number> {
  const memoryd = locateMemoryd(undefined, process.env);
  const args = [...memoryd.args, '--fetch-model'];
  if (ctx.connection.dataDir !== undefined) args.push('--data-dir', ctx.connection.dataDir);
  if (model !== undefined) args.push('--embed-model', model);
  return new Promise((resolve, reject) => {
    const child = spawn(memoryd.command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

export const embeddings: Command = {
  name: 'embeddings',
  help: `Usage: memoryctl embeddings status
       memoryctl embeddings rebuild [--wait [--timeout SECONDS]]
       memoryctl embeddings fetch [--model NAME]

Meaning search (docs/embeddings.md): facts embedded by the daemon's
embedder, searched by meaning beside their words.

  status    the embedder, its model, the vectors' dimensions, how many facts
            wait to be embedded, the embedder's last error (and when), and
            whether the queue stopped on it
  rebuild   drop every stored vector and embed every fact again (after
            changing a model's weights under the same name, or to start a
            stopped queue again); with --wait, wait until every fact is
            embedded, the count on stderr, and end with an error (exit 1)
            when the queue stops or no fact is embedded for --timeout
            seconds (default ${WAIT_TIMEOUT_S})
  fetch     download the local model (--embedder local) into the data dir's
            cache and check its checksums, without a running daemon; --model
            names one (default bge-small-en-v1.5)
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { wait: { type: 'boolean' }, timeout: { type: 'string' }, model: { type: 'string' } }, ['ACTION']);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const action = a.positionals[0];
    if (action !== 'fetch' && a.values['model'] !== undefined) throw new UsageError('--model is for embeddings fetch');
    if (action !== 'rebuild' && a.values['wait'] !== undefined) throw new UsageError('--wait is for embeddings rebuild');
    if (a.values['timeout'] !== undefined && a.values['wait'] !== true) throw new UsageError('--timeout is for embeddings rebuild --wait');
    const timeoutS = a.values['timeout'] === undefined ? WAIT_TIMEOUT_S : Number(a.values['timeout']);
    if (!Number.isInteger(timeoutS) || timeoutS < 1) throw new UsageError(`--timeout needs a whole number of seconds, 1 or more, got ${JSON.stringify(a.values['timeout'])}`);
    switch (action) {
      case 'status': {
        const { embeddings: e } = await ctx.client().call(DaemonStatus, {});
        ctx.out(ctx.json ? json(e ?? { embedder: 'none' }) : describe(e));
        return 0;
      }
      case 'rebuild': {
        const { pending } = await ctx.client().call(AdminReembed, {});
        if (a.values['wait'] === true) {
          let e;
          try {
            e = await waitEmbedded(ctx, timeoutS);
          } finally {
            if (ctx.stderrIsTTY) process.stderr.write('\r\x1b[K');
          }
          ctx.out(ctx.json ? json({ queued: pending, ...e }) : `Embedded ${count(pending, 'fact')} again.`);
        } else {
          ctx.out(ctx.json ? json({ queued: pending }) : `Embedding ${count(pending, 'fact')} again; memoryctl embeddings status shows how many are left.`);
        }
        return 0;
      }
      case 'fetch':
        if (ctx.json) throw new UsageError('embeddings fetch prints progress, not JSON');
        return fetchModel(ctx, a.values['model'] as string | undefined);
      default:
        throw new UsageError(`ACTION must be status, rebuild or fetch, got ${JSON.stringify(action)}${didYouMean(String(action), ['status', 'rebuild', 'fetch'])}`);
    }
  },
};
