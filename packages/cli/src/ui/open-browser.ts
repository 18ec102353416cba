import { spawn } from 'node:child_process';

/** The command that opens an address in the person's browser on this system. */
function opener(): string {
  return process.platform === 'darwin' ? 'open' : 'xdg-open';
}

/**
 * Opens `url` in the default browser (xdg-open, or open on macOS), detached;
 * resolves with why it could not, or undefined. The reason never holds the
 * address: it carries the token.
 */
export function openBrowser(url: string): Promise<string | undefined> {
  const command = opener();
  return new Promise((resolve) => {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT' ? `${command} is not installed` : `${command} failed: ${err.code ?? err.name}`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
