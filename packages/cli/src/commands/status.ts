import { DaemonStatus } from '@memoryd/protocol';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { json, pairs } from '../output.js';

function uptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  const [d, h, m] = [Math.floor(s / 86400), Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60)];
  return d > 0 ? `${d}d ${h}h ${m}m` : h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}

export const status: Command = {
  name: 'status',
  help: `Usage: memoryctl status

Prints the running daemon's version, pid, uptime, socket, data dir, store
backend (level or postgres), open connections, counts of facts,
checkpoints and agents, and health ("ok", or "read-only: CAUSE" while
writes are refused after a failed one); with an embedder, its model, the
facts still to embed and its last error.
`,
  async run(ctx) {
    if (commandArgs(ctx.argv, {}, []).help) {
      ctx.out(this.help);
      return 0;
    }
    const s = await ctx.client().call(DaemonStatus, {});
    if (ctx.json) ctx.out(json(s));
    else {
      ctx.out(
        pairs([
          ['version', s.daemonVersion],
          ['pid', s.pid],
          ['uptime', uptime(s.uptimeMs)],
          ['socket', s.socket],
          ['data dir', s.dataDir],
          ['store', s.store],
          ['connections', s.connections],
          ['facts', s.facts],
          ['checkpoints', s.checkpoints],
          ['agents', s.agents],
          ['health', s.health ?? 'unknown (an older daemon)'],
          ...(s.embeddings === undefined
            ? []
            : ([
                ['embedder', `${s.embeddings.embedder} ${s.embeddings.model}${s.embeddings.dimensions > 0 ? ` (${s.embeddings.dimensions} dimensions)` : ''}`],
                ['to embed', s.embeddings.pending],
                ...(s.embeddings.lastError === undefined ? [] : [['embedder error', s.embeddings.lastError]]),
              ] as Array<[string, string | number]>)),
        ]),
      );
    }
    return 0;
  },
};
