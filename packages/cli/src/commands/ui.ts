import { once } from 'node:events';
import { UsageError } from '@memoryd/client/args';
import type { Command } from '../command.js';
import { commandArgs } from '../args.js';
import { type Opened, openBrowser } from '../ui/open-browser.js';
import { startUiServer } from '../ui/server.js';

/** `--port N`: 1-65535, or undefined for a free port. */
function portOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) throw new UsageError(`--port must be a port number from 1 to 65535, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Resolves at the first Ctrl-C (SIGINT) or SIGTERM. */
async function stopSignal(): Promise<NodeJS.Signals> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  const ac = new AbortController();
  try {
    return await Promise.race(signals.map(async (s) => (await once(process, s, { signal: ac.signal }), s)));
  } finally {
    ac.abort();
  }
}

export const ui: Command = {
  name: 'ui',
  help: `Usage: memoryctl ui [--port N] [--no-open] [--loopback-ip]

Serves a web page on the loopback where you see and correct what your
agents remember: agents, their facts newest first, search as you type
with tag and time filters, each fact's history, editing, deleting and
adding facts, checkpoints, the daemon's status, export and import. The
page talks to the daemon through this memoryctl; the daemon itself
listens on its socket only.

It prints the page's address, http://NAME.localhost:PORT/ with a fresh
NAME each run and a token that works once, and opens it in your browser.
Every request needs the session token the page swaps that token for (kept
by the page, sent as a header; no cookie), so other users of this machine
cannot use the page. Ctrl-C stops it.

Options:
  --port N        serve on port N (default: a free port)
  --no-open       print the address without opening a browser
  --loopback-ip   serve at http://127.0.0.1:PORT/ instead, for a browser
                  that does not resolve names under localhost (Safari);
                  whatever served on that port before may have left a
                  service worker or cached files there (docs/operations.md)
`,
  async run(ctx) {
    const a = commandArgs(ctx.argv, { port: { type: 'string' }, 'no-open': { type: 'boolean' }, 'loopback-ip': { type: 'boolean' } }, []);
    if (a.help) {
      ctx.out(this.help);
      return 0;
    }
    const port = portOption(a.values['port']);
    // Connect (and autostart) first: a daemon that cannot be reached is said now, not on the page's first request.
    await ctx.client().connect();
    const address = a.values['loopback-ip'] === true ? 'loopback-ip' : 'fresh-name';
    const server = await startUiServer(ctx.client(), port ?? 0, address, (err) => ctx.err(`memoryctl: the page's server failed: ${(err as Error).message}`));
    const stopped = stopSignal();
    let opened: Opened | undefined;
    try {
      ctx.out(`memoryd's page: ${server.firstUrl}`);
      ctx.err('memoryctl: the address works once; Ctrl-C stops the page');
      if (a.values['no-open'] !== true) {
        opened = await openBrowser(server.firstUrl, process.env['XDG_RUNTIME_DIR']);
        ctx.err(
          opened.problem === undefined
            ? 'memoryctl: opened your browser; if it shows an error, open the address above'
            : `memoryctl: could not open a browser (${opened.problem}): open the address above`,
        );
      }
      await stopped;
    } finally {
      await server.close();
      await opened?.cleanup();
    }
    return 0;
  },
};
