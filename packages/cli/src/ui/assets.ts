import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** One file of the page, held in memory: it is small and served often. */
export interface Asset {
  type: string;
  body: Buffer;
}

/** The page's files by path: what scripts/bundle-web.mjs writes into dist/web/. */
const FILES: ReadonlyArray<[path: string, file: string, type: string]> = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/app.js', 'app.js', 'text/javascript; charset=utf-8'],
  ['/app.css', 'app.css', 'text/css; charset=utf-8'],
];

/**
 * The folder of the page's files: `web/` beside the memoryctl bundle (the
 * release's dist/ and the checkout's packages/cli/dist/), or beside this
 * module's folder when memoryctl runs from the compiled dist.
 */
function webDir(): string {
  for (const candidate of ['./web/', '../web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error('the web page\'s files are missing (no web/index.html beside memoryctl): run npm run build');
}

/** Reads the page's files, by the path they are served at. */
export async function loadAssets(): Promise<ReadonlyMap<string, Asset>> {
  const dir = webDir();
  const assets = new Map<string, Asset>();
  for (const [path, file, type] of FILES) assets.set(path, { type, body: await readFile(`${dir}${file}`) });
  return assets;
}
