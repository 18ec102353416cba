// A headless Chromium (Debian's, through playwright-core) watching for what
// the page must never do: a console error, an uncaught exception, a
// Content-Security-Policy violation, a request to any other origin.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { trackCloser } from '@memoryd/test-support';

/** Where the browser tests save their screenshots (MEMORYD_SCREENSHOTS, or dist-test/screenshots). */
export const SCREENSHOTS = process.env['MEMORYD_SCREENSHOTS'] || fileURLToPath(new URL('../screenshots/', import.meta.url));

/** A page in a fresh browser, and what it did wrong so far. */
export interface WatchedPage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and requests to other origins, in order. */
  problems: string[];
  /** The CSP violations the page reported (securitypolicyviolation events). */
  cspViolations(): Promise<string[]>;
  /** Saves a screenshot of the whole page as NAME.png under {@link SCREENSHOTS}. */
  screenshot(name: string): Promise<void>;
}

/** Records the page's CSP violations where cspViolations() reads them. */
const RECORD_CSP_VIOLATIONS = `
window.__cspViolations = [];
addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' blocked ' + e.blockedURI));
`;

/** Bounds the page's every wait by 15 s and adds to `problems` its console errors, uncaught exceptions and requests to any origin but `origin`. */
export function watch(page: Page, origin: string, problems: string[]): void {
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request to another origin: ${r.url()}`);
  });
}

/** Launches Chromium at `executablePath` with one page on `origin`'s side, every wait bounded by 15 s. */
export async function watchedPage(executablePath: string, origin: string): Promise<WatchedPage> {
  // As root (CI's container), Chromium's sandbox cannot start.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath, args, timeout: 60_000 });
  trackCloser(() => browser.close());
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 800 } });
  // Injected by the browser itself, before any of the page's script: CSP does not apply to it.
  await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
  const page = await context.newPage();
  const problems: string[] = [];
  watch(page, origin, problems);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    browser,
    context,
    page,
    problems,
    cspViolations: () => page.evaluate<string[]>('window.__cspViolations ?? []'),
    screenshot: async (name) => void (await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })),
  };
}
