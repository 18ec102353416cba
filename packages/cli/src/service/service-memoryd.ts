// Which memoryd a service runs, by absolute path: a service manager starts
// it with no PATH of the user's and no working directory, so both node and
// memoryd are named outright.
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { locateMemoryd } from '@memoryd/client';

/** No memoryd to put in a service definition. */
export class MemorydNotFound extends Error {
  override readonly name = 'MemorydNotFound';
}

function onPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * The command line that runs memoryd: this node and memoryd's JS entry
 * (found as every front end
 * finds it: MEMORYD_BIN, this release's own, node_modules/.bin), or
 * memoryd on PATH, links resolved.
 */
export function serviceMemoryd(env: NodeJS.ProcessEnv): string[] {
  const found = locateMemoryd(undefined, env);
  if (found.command === process.execPath) {
    // The JS entry, made absolute: plain `node …/memoryd.js`, no runtime flags (ADR 0029).
    return [found.command, ...found.args.map((arg) => resolve(arg))];
  }
  const bin = onPath('memoryd', env['PATH']);
  if (bin === undefined) {
    throw new MemorydNotFound('cannot find memoryd to run as a service: install memoryd (npm install -g memoryd), or set MEMORYD_BIN to its bin/memoryd.js');
  }
  const real = realpathSync(bin);
  return /\.[cm]?js$/.test(real) ? [process.execPath, real] : [real];
}
