import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '@memoryd/client';
import { AdminImport, Limits } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, makeUlid, startDaemon, trackCloser, waitFor } from '@memoryd/test-support';
import { type WatchedPage, watchedPage } from './helpers/browser.js';
import { type CountingProxy, startCountingProxy } from './helpers/counting-proxy.js';
import { findChromium, NO_CHROMIUM, startUi, type UiProcess } from './helpers/ui.js';

// With 100,000 facts in one agent, the page reads what it shows and no
// more: the facts view and a search each show their first results after
// one page read from the daemon. A proxy on the page's daemon socket
// counts every request.

after(cleanupAll);

const chromium = findChromium();
const FACTS = 100_000;

describe('memoryctl ui with 100,000 facts in one agent', { skip: chromium === undefined ? NO_CHROMIUM : false }, () => {
  let daemon: DaemonHandle;
  let proxy: CountingProxy;
  let ui: UiProcess;
  let w: WatchedPage;

  before(async () => {
    daemon = await startDaemon({ logLevel: 'error', timeoutMs: 30_000 });
    const client = new DaemonClient({ socket: daemon.socket, autostart: false, requestTimeoutMs: 120_000 });
    trackCloser(() => client.close());
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    for (let start = 0; start < FACTS; start += Limits.importMaxRecords) {
      const records = Array.from({ length: Limits.importMaxRecords }, (_, k) => {
        const i = start + k;
        const at = t0 + i * 1000;
        return { type: 'fact', agentId: 'big', id: makeUlid(at, i), content: `fact ${i} about topic ${i % 997} and place ${i % 101}`, tags: [`t${i % 13}`], createdAt: new Date(at).toISOString() };
      });
      assert.equal((await client.call(AdminImport, { records })).imported, records.length);
    }
    proxy = await startCountingProxy(daemon.socket);
    ui = await startUi(proxy.socket);
    trackCloser(async () => void (await ui.stop()));
    w = await watchedPage(chromium!, ui.origin);
    await w.page.goto(ui.url);
    await w.page.locator('a.agent:text-is("big")').waitFor();
  });

  it('the facts view shows the newest page after one memory.list of one page, and nothing else', async () => {
    proxy.reset();
    await w.page.click('a.agent:text-is("big")');
    await waitFor(async () => (await w.page.locator('li.fact').count()) > 0, 30_000, 'the first facts');
    assert.equal(await w.page.locator('li.fact .fact-text').first().textContent(), `fact ${FACTS - 1} about topic ${(FACTS - 1) % 997} and place ${(FACTS - 1) % 101}`);
    const asked = proxy.requests();
    assert.deepEqual(asked.map((r) => r.method), ['memory.list'], JSON.stringify(asked));
    assert.equal(asked[0]!.params['order'], 'newest');
    assert.ok(Number(asked[0]!.params['limit']) <= 100, 'one page');
    assert.deepEqual(w.problems, []);
  });

  it('a search shows its first results after one memory.search, and no list', async () => {
    proxy.reset();
    await w.page.fill('#search', 'topic 42');
    await waitFor(async () => (await w.page.locator('.summary').textContent())?.includes('best first') === true, 30_000, 'the search results');
    assert.ok((await w.page.locator('li.fact').count()) > 0);
    const asked = proxy.requests();
    assert.deepEqual(asked.map((r) => r.method), ['memory.search'], JSON.stringify(asked));
    assert.deepEqual(w.problems, []);
    assert.deepEqual(await w.cspViolations(), []);
  });
});
