import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long the opener may take to say it failed before it is taken to have worked, in ms. */
const OPENER_WAIT_MS = 3000;

/** The command that opens a file in the person's browser on this system. */
function opener(): string {
  return process.platform === 'darwin' ? 'open' : 'xdg-open';
}

/** An HTML file that sends the browser on to `url`, readable by this user only. */
function launcherPage(url: string): string {
  const attr = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<!doctype html>\n<meta charset="utf-8">\n<meta http-equiv="refresh" content="0;url=${attr}">\n<title>memoryd</title>\n<p><a href="${attr}">Open memoryd's page</a></p>\n`;
}

/** Runs the opener on `file`; resolves with why it failed, or undefined once it exited 0 or is still running after a while. */
function runOpener(file: string): Promise<string | undefined> {
  const command = opener();
  return new Promise((resolve) => {
    const child = spawn(command, [file], { detached: true, stdio: 'ignore' });
    const timer = setTimeout(() => {
      child.unref();
      resolve(undefined);
    }, OPENER_WAIT_MS);
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code === 'ENOENT' ? `${command} is not installed` : `${command} failed: ${err.code ?? err.name}`);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : `${command} exited with ${code ?? signal}`);
    });
  });
}

/** A way into the page that the browser was handed, and what to remove once the page stops. */
export interface Opened {
  /** Why no browser could be opened, or undefined. */
  problem: string | undefined;
  /** Removes the launcher file. */
  cleanup(): Promise<void>;
}

/**
 * Opens `url` in the default browser (xdg-open, or open on macOS). The
 * address carries the token, and a command's arguments are readable by
 * every user of the machine (/proc), so the opener is handed a file
 * instead: a page, in a directory only this user can read, that sends the
 * browser on to the address (as Jupyter does). The reason of a failure
 * never holds the address.
 */
export async function openBrowser(url: string, runtimeDir: string | undefined): Promise<Opened> {
  // mkdtemp makes the directory 0700; the file is 0600 besides. XDG_RUNTIME_DIR may be another user's (after su): then the temp dir.
  let dir: string | undefined;
  for (const parent of [runtimeDir, tmpdir()]) {
    if (parent === undefined || parent === '' || dir !== undefined) continue;
    dir = await mkdtemp(join(parent, 'memoryd-ui-')).catch(() => undefined);
  }
  if (dir === undefined) return { problem: 'no private directory for the page that opens it could be made', cleanup: async () => {} };
  const made = dir;
  const cleanup = () => rm(made, { recursive: true, force: true });
  const file = join(made, 'open.html');
  try {
    await writeFile(file, launcherPage(url), { mode: 0o600 });
  } catch (err) {
    await cleanup();
    return { problem: `the page that opens it could not be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, cleanup: async () => {} };
  }
  return { problem: await runOpener(file), cleanup };
}
