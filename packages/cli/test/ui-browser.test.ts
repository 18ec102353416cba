import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { DaemonClient } from '@memoryd/client';
import { AdminExport, AdminImport, CheckpointSave, DaemonStatus, MemoryAdd, MemoryHistory, MemoryList, MemoryReflect } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, makeUlid, startDaemon, startFakeEmbedder, tempDir, trackCloser, waitFor } from '@memoryd/test-support';
import { type WatchedPage, watch, watchedPage } from './helpers/browser.js';
import { findChromium, NO_CHROMIUM, startUi, type UiProcess } from './helpers/ui.js';

// The page of memoryctl ui, used as a person uses it, in a real headless
// Chromium against a real daemon: every view, typing, clicks, a dialog, a
// download and an upload; with no console error, no CSP violation and no
// request to another origin along the way. Screenshots of the main views
// land in dist-test/screenshots (or MEMORYD_SCREENSHOTS).

after(cleanupAll);

const chromium = findChromium();
const DAY = 86_400_000;

/** Waits (bounded) until `locator` matches exactly `n` elements. */
async function expectCount(locator: Locator, n: number, what: string): Promise<void> {
  await waitFor(async () => (await locator.count()) === n, 15_000, `${what}: ${n} elements`);
}

/** The texts of the facts the view lists, in order. */
async function factTexts(w: WatchedPage): Promise<string[]> {
  return w.page.locator('li.fact .fact-text').allTextContents();
}

describe('memoryctl ui in Chromium', { skip: chromium === undefined ? NO_CHROMIUM : false }, () => {
  let daemon: DaemonHandle;
  let client: DaemonClient;
  let ui: UiProcess;
  let w: WatchedPage;
  const states = [
    { step: 1, notes: ['read the brief', 'ask about the budget'] },
    { step: 2, plan: { next: 'review', owners: ['alice', 'bob'] }, done: false },
  ];

  before(async () => {
    daemon = await startDaemon({ logLevel: 'error' });
    client = new DaemonClient({ socket: daemon.socket, autostart: false });
    trackCloser(() => client.close());
    const old = (iso: string, n: number, content: string, tags: string[]) => ({ type: 'fact', agentId: 'alice', id: makeUlid(Date.parse(iso), n), content, tags, createdAt: iso });
    const pager = Array.from({ length: 30 }, (_, i) => ({ type: 'fact', agentId: 'pager', id: makeUlid(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000, i), content: `note number ${i}`, createdAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString() }));
    const imported = await client.call(AdminImport, {
      records: [old('2025-03-10T09:00:00.000Z', 1, 'alice planted tulips in the garden', ['garden']), old('2025-06-01T07:30:00.000Z', 2, 'alice prefers green tea in the morning', ['drinks']), ...pager],
    });
    assert.equal(imported.imported, 32);
    await client.call(MemoryAdd, { agentId: 'alice', content: 'the sky over the harbour was blue today', tags: ['weather'] });
    await client.call(MemoryAdd, { agentId: 'alice', content: 'alice keeps her keys in the blue bowl', tags: ['home'] });
    await client.call(MemoryAdd, { agentId: 'alice', content: 'alice has a dentist appointment on friday', tags: ['health', 'calendar'] });
    for (const [i, state] of states.entries()) await client.call(CheckpointSave, { agentId: 'alice', state, messageCount: 10 * (i + 1) });
    ui = await startUi(daemon.socket);
    trackCloser(async () => void (await ui.stop()));
    w = await watchedPage(chromium!, ui.origin);
  });

  /** Each step ends clean: nothing went wrong in the browser. */
  async function assertClean(): Promise<void> {
    assert.deepEqual(w.problems, []);
    assert.deepEqual(await w.cspViolations(), []);
  }

  it('the printed address opens the agents, and the token leaves the address bar', async () => {
    await w.page.goto(ui.url);
    await w.page.locator('.agent-list li').first().waitFor();
    assert.equal(w.page.url(), `${ui.origin}/`);
    assert.deepEqual(await w.context.cookies(), [], 'no cookie: every port of 127.0.0.1 would be sent it');
    const agents = w.page.locator('.agent-list li');
    await expectCount(agents, 2, 'agents');
    assert.match((await agents.nth(0).textContent()) ?? '', /alice\s*5 facts\s*2 checkpoints/);
    assert.match((await agents.nth(1).textContent()) ?? '', /pager\s*30 facts\s*0 checkpoints/);
    await w.screenshot('agents');
    await assertClean();
  });

  it('an agent\'s facts come newest first, a page at a time, forward and back', async () => {
    await w.page.click('a.agent:text-is("pager")');
    await expectCount(w.page.locator('li.fact'), 25, 'the first page');
    const first = await factTexts(w);
    assert.equal(first[0], 'note number 29');
    assert.equal(first[24], 'note number 5');
    await w.page.click('button:text-is("Older")');
    await waitFor(async () => (await factTexts(w))[0] === 'note number 4', 15_000, 'the second page');
    assert.deepEqual(await factTexts(w), ['note number 4', 'note number 3', 'note number 2', 'note number 1', 'note number 0']);
    assert.equal(await w.page.locator('button:text-is("Older")').count(), 0);
    await w.page.click('button:text-is("Newer")');
    await waitFor(async () => (await factTexts(w))[0] === 'note number 29', 15_000, 'the first page again');
    // Paging starts over when what is shown changes, and stays so when it changes back.
    await w.page.click('button:text-is("Older")');
    await waitFor(async () => (await factTexts(w))[0] === 'note number 4', 15_000, 'the second page');
    await w.page.fill('#search', 'note');
    await waitFor(async () => (await w.page.locator('.summary').textContent())?.includes('best first') === true, 15_000, 'a search');
    await w.page.fill('#search', '');
    await waitFor(async () => (await w.page.locator('.summary').textContent()) === 'Newest first', 15_000, 'the list again');
    assert.equal((await factTexts(w))[0], 'note number 29');
    assert.equal(await w.page.locator('button:text-is("Newer")').count(), 0);
    await assertClean();
  });

  it('/ focuses the search box, and results come as you type, with their scores', async () => {
    await w.page.goto(`${ui.origin}/#/agents/alice`);
    await expectCount(w.page.locator('li.fact'), 5, 'alice\'s facts');
    assert.deepEqual((await factTexts(w)).slice(0, 3), ['alice has a dentist appointment on friday', 'alice keeps her keys in the blue bowl', 'the sky over the harbour was blue today']);
    await w.page.locator('h1').click();
    await w.page.keyboard.press('/');
    assert.equal(await w.page.evaluate('document.activeElement.id'), 'search');
    // Key by key, slower than the typing pause: several searches go out, and the last one's answer is what stays.
    await w.page.keyboard.type('blu', { delay: 300 });
    await w.page.keyboard.type('e');
    await waitFor(async () => (await w.page.locator('.summary').textContent())?.includes('2 matches, best first') === true && (await w.page.locator('li.fact').count()) === 2, 15_000, 'the search results');
    assert.deepEqual((await factTexts(w)).sort(), ['alice keeps her keys in the blue bowl', 'the sky over the harbour was blue today']);
    const scores = await w.page.locator('li.fact .score').allTextContents();
    assert.equal(scores.length, 2);
    for (const s of scores) assert.match(s, /^score \d+\.\d{3}$/);
    await w.screenshot('search');
    await assertClean();
  });

  it('the tag and time filters narrow the list and the search', async () => {
    const search = w.page.locator('#search');
    await search.fill('');
    await w.page.fill('input[name=tags]', 'garden');
    await waitFor(async () => JSON.stringify(await factTexts(w)) === JSON.stringify(['alice planted tulips in the garden']), 15_000, 'the tag filter');
    await w.page.fill('input[name=tags]', '');
    const today = new Date();
    const local = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    await w.page.fill('input[name=since]', local(new Date(today.getTime() - DAY)));
    await waitFor(async () => (await w.page.locator('li.fact').count()) === 3, 15_000, 'since yesterday: the three facts added today');
    await w.page.fill('input[name=since]', '');
    await w.page.fill('input[name=until]', '2025-12-31');
    await waitFor(async () => JSON.stringify(await factTexts(w)) === JSON.stringify(['alice prefers green tea in the morning', 'alice planted tulips in the garden']), 15_000, 'until 2025: the two old facts');
    await search.fill('alice');
    await waitFor(async () => (await w.page.locator('.summary').textContent())?.includes('filtered') === true && (await w.page.locator('li.fact').count()) === 2, 15_000, 'a search under the time filter');
    await w.page.fill('input[name=tags]', 'drinks');
    await waitFor(async () => JSON.stringify(await factTexts(w)) === JSON.stringify(['alice prefers green tea in the morning']), 15_000, 'a search under both filters');
    await w.page.click('button:text-is("Clear filters")');
    await search.fill('');
    await expectCount(w.page.locator('li.fact'), 5, 'every fact again');
    await assertClean();
  });

  it('adds a fact, which comes first; the same text again is said to be known', async () => {
    await w.page.click('summary:text-is("Add a fact")');
    await w.page.fill('details.add textarea[name=content]', 'alice parks on level 3');
    await w.page.fill('details.add input[name=tags]', 'car, parking');
    await w.page.click('details.add button:text-is("Add")');
    await w.page.locator('details.add .note:has-text("Added:")').waitFor();
    await waitFor(async () => (await factTexts(w))[0] === 'alice parks on level 3', 15_000, 'the new fact first');
    assert.deepEqual(await w.page.locator('li.fact').first().locator('.tags li').allTextContents(), ['car', 'parking']);
    await w.page.fill('details.add textarea[name=content]', 'Alice parks on level 3');
    await w.page.click('details.add button:text-is("Add")');
    await w.page.locator('details.add .note:has-text("already remembers")').waitFor();
    assert.equal((await client.call(MemoryList, { agentId: 'alice', limit: 100 })).facts.length, 6, 'no second copy');
    await assertClean();
  });

  let firstId = '';
  let secondId = '';

  it('a fact\'s page corrects its text and tags, and its history says what changed', async () => {
    await w.page.click('li.fact .fact-text:text-is("alice parks on level 3")');
    await w.page.locator('ol.history > li').first().waitFor();
    firstId = decodeURIComponent(w.page.url().split('/').pop()!);
    assert.match(await w.page.locator('ol.history').textContent() ?? '', /added.*current/s);
    await w.page.fill('form.correct textarea[name=content]', 'alice parks on level 4');
    await w.page.fill('form.correct input[name=tags]', 'car');
    await w.page.click('button:text-is("Save changes")');
    await waitFor(() => !w.page.url().endsWith(firstId), 15_000, 'the page of the new version');
    secondId = decodeURIComponent(w.page.url().split('/').pop()!);
    const items = w.page.locator('ol.history > li');
    await expectCount(items, 2, 'two versions');
    assert.match((await items.nth(0).textContent()) ?? '', /added\s*replaced .* by the next version.*alice parks on level 3/s);
    assert.match((await items.nth(1).textContent()) ?? '', /text and tags changed\s*current.*alice parks on level 4/s);
    const { versions } = await client.call(MemoryHistory, { agentId: 'alice', factId: secondId });
    assert.deepEqual(versions.map((v) => [v.id, v.content, v.tags]), [[firstId, 'alice parks on level 3', ['car', 'parking']], [secondId, 'alice parks on level 4', ['car']]]);
    await w.screenshot('fact');
    await assertClean();
  });

  it('deleting asks first: Cancel keeps the fact, Delete removes it and the history says so', async () => {
    await w.page.click('button:text-is("Delete…")');
    const dialog = w.page.locator('dialog.confirm');
    await dialog.waitFor({ state: 'visible' });
    await dialog.locator('button:text-is("Cancel")').click();
    await dialog.waitFor({ state: 'hidden' });
    const kept = await client.call(MemoryHistory, { agentId: 'alice', factId: secondId });
    assert.equal(kept.versions.at(-1)?.deletedAt, undefined);
    await w.page.click('button:text-is("Delete…")');
    await dialog.locator('button:text-is("Delete")').click();
    await w.page.locator('.note:has-text("This fact was deleted")').waitFor();
    assert.match((await w.page.locator('ol.history > li').nth(1).textContent()) ?? '', /deleted/);
    const list = await client.call(MemoryList, { agentId: 'alice', limit: 100 });
    assert.equal(list.facts.some((f) => f.id === secondId || f.id === firstId), false);
    await assertClean();
  });

  it('checkpoints are listed, and a state reads as formatted JSON', async () => {
    await w.page.click('a:text-is("All of alice\'s facts")');
    await w.page.click('nav a:text-is("Checkpoints")');
    const items = w.page.locator('.checkpoint-list li');
    await expectCount(items, 2, 'checkpoints');
    assert.match((await items.nth(1).textContent()) ?? '', /20 messages/);
    await items.nth(1).locator('a').click();
    const pre = w.page.locator('pre.state');
    await pre.waitFor();
    assert.equal(await pre.textContent(), JSON.stringify(states[1], null, 2));
    await w.screenshot('checkpoint');
    await assertClean();
  });

  it('status shows the daemon\'s version, uptime, store, data dir, counts and meaning search', async () => {
    await w.page.click('header.top a:text-is("Status")');
    const dl = w.page.locator('dl.pairs').first();
    await dl.waitFor();
    const s = await client.call(DaemonStatus, {});
    const text = (await dl.textContent()) ?? '';
    assert.match(text, new RegExp(`memoryd ${s.daemonVersion.replace(/\./g, '\\.')}`));
    assert.match(text, /Up for.*\(pid \d+\)/);
    assert.match(text, /LevelDB, in the data dir/);
    assert.ok(text.includes(s.dataDir), 'the data dir');
    assert.match(text, new RegExp(`Facts${s.facts}`));
    assert.match(text, new RegExp(`Checkpoints${s.checkpoints}`));
    assert.match((await w.page.locator('section.status').textContent()) ?? '', /Meaning search\s*Off/);
    await w.screenshot('status');
    await assertClean();
  });

  it('status shows the embedder, its model, the facts pending and its last error', async () => {
    const fake = await startFakeEmbedder({ vectors: 'hash', dimensions: 16, mode: 'down' });
    trackCloser(() => fake.close());
    const embedding = await startDaemon({ logLevel: 'error', args: ['--embedder', 'ollama', '--embed-url', fake.url, '--embed-model', 'fake'] });
    const c = new DaemonClient({ socket: embedding.socket, autostart: false });
    trackCloser(() => c.close());
    await c.call(MemoryAdd, { agentId: 'bob', content: 'bob waits for his vector' });
    await waitFor(async () => (await c.call(DaemonStatus, {})).embeddings?.lastError !== undefined, 20_000, 'the embedder\'s error');
    const second = await startUi(embedding.socket);
    trackCloser(async () => void (await second.stop()));
    const page = await w.context.newPage();
    watch(page, second.origin, w.problems);
    await page.goto(second.url);
    await page.click('header.top a:text-is("Status")');
    const section = page.locator('section.status');
    await section.locator('h2:text-is("Meaning search")').waitFor();
    const text = (await section.textContent()) ?? '';
    assert.match(text, /Embedderollama/);
    assert.match(text, /Modelfake/);
    assert.match(text, /Pending1 fact waiting for a vector/);
    assert.match(text, /Last error\S+/);
    assert.doesNotMatch(text, /Last errornone/);
    await page.close();
    await assertClean();
  });

  it('exports an agent, and everything, as downloads of one snapshot', async () => {
    await w.page.goto(`${ui.origin}/#/agents/alice`);
    await expectCount(w.page.locator('li.fact'), 5, 'alice\'s facts');
    const [agentFile] = await Promise.all([w.page.waitForEvent('download'), w.page.click('button:text-is("Export this agent")')]);
    assert.match(agentFile.suggestedFilename(), /^memoryd-alice-.*\.jsonl$/);
    const lines = readFileSync((await agentFile.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; agentId?: string; id?: string });
    assert.equal(lines[0]!.type, 'memoryd-export');
    const expected = await client.call(AdminExport, { agentId: 'alice', limit: 1000 });
    assert.deepEqual(lines.slice(1).map((r) => r.id), expected.records.map((r) => r.id));
    await w.page.click('header.top a:text-is("Export and import")');
    const [all] = await Promise.all([w.page.waitForEvent('download'), w.page.click('button:text-is("Download everything")')]);
    const agents = new Set(readFileSync((await all.path())!, 'utf8').trim().split('\n').slice(1).map((l) => (JSON.parse(l) as { agentId: string }).agentId));
    assert.deepEqual([...agents].sort(), ['alice', 'pager']);
    await assertClean();
  });

  it('imports a file with a progress bar, reporting each refused line', async () => {
    const file = join(tempDir('ui-import-'), 'restore.jsonl');
    const t = Date.parse('2026-02-02T10:00:00.000Z');
    const lines = [
      JSON.stringify({ type: 'memoryd-export', version: 1, createdAt: new Date().toISOString(), daemonVersion: '0.1.0' }),
      JSON.stringify({ type: 'fact', agentId: 'imported', id: makeUlid(t, 1), content: 'carol moved to lisbon', createdAt: new Date(t).toISOString() }),
      JSON.stringify({ type: 'fact', agentId: 'imported', id: makeUlid(t + 1, 2), content: 'carol learns portuguese', tags: ['language'], createdAt: new Date(t + 1).toISOString() }),
      'this line is not json',
      JSON.stringify({ type: 'fact', agentId: 'imported', id: makeUlid(t + 2, 3), createdAt: new Date(t + 2).toISOString() }),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    await w.page.setInputFiles('input[type=file]', file);
    await w.page.click('button:text-is("Import")');
    const outcome = w.page.locator('.outcome');
    await outcome.waitFor();
    assert.match((await outcome.locator('p').textContent()) ?? '', /Imported 2 records, skipped 0 already there, refused 2\./);
    const rows = await w.page.locator('table.refused tbody tr').allTextContents();
    assert.equal(rows.length, 2);
    assert.match(rows[0]!, /^4not JSON$/);
    assert.match(rows[1]!, /^5.*content/);
    const bar = w.page.locator('progress');
    assert.equal(await bar.getAttribute('value'), await bar.getAttribute('max'));
    await w.screenshot('import');
    await w.page.click('header.top a:text-is("Agents")');
    await w.page.locator('a.agent:text-is("imported")').waitFor();
    await assertClean();
  });

  it('reads at 360 px wide: no view scrolls sideways', async () => {
    await w.page.setViewportSize({ width: 360, height: 740 });
    for (const hash of ['#/', '#/agents/alice', `#/agents/alice/facts/${secondId}`, '#/agents/alice/checkpoints', '#/status', '#/transfer']) {
      await w.page.goto(`${ui.origin}/${hash}`);
      await w.page.locator('main section h1').waitFor();
      await w.page.waitForLoadState('networkidle');
      const wide = await w.page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(wide <= 360, `${hash} is ${wide} px wide`);
    }
    await w.page.goto(`${ui.origin}/#/agents/alice`);
    await expectCount(w.page.locator('li.fact'), 5, 'alice\'s facts');
    await w.screenshot('facts-360');
    await w.page.setViewportSize({ width: 1100, height: 800 });
    await w.page.goto(`${ui.origin}/#/agents/alice`);
    await expectCount(w.page.locator('li.fact'), 5, 'alice\'s facts');
    await w.screenshot('facts');
    await assertClean();
  });

  it('text that looks like HTML shows as text, and an agent id of every allowed character routes', async () => {
    const agentId = 'team.ops:bot@host_1-x';
    const content = '<img src=x onerror="document.title=1"> <script>document.title=2</script> & &amp; "quoted"';
    const added = await client.call(MemoryAdd, { agentId, content, tags: ['<b>bold</b>'] });
    await w.page.goto(`${ui.origin}/#/`);
    await w.page.click(`a.agent:text-is("${agentId}")`);
    await expectCount(w.page.locator('li.fact'), 1, 'the fact');
    assert.equal(await w.page.locator('li.fact .fact-text').textContent(), content);
    assert.equal(await w.page.locator('li.fact .tags li').textContent(), '<b>bold</b>');
    assert.equal(await w.page.locator('li.fact img, li.fact script, li.fact b').count(), 0);
    await w.page.click('li.fact .fact-text');
    await w.page.locator('ol.history > li').first().waitFor();
    assert.equal(decodeURIComponent(new URL(w.page.url()).hash), `#/agents/${agentId}/facts/${added.factId}`);
    assert.equal(await w.page.locator('form.correct textarea').inputValue(), content);
    assert.equal(await w.page.title(), 'memoryd');
    await assertClean();
  });

  it('a day\'s filter holds the whole local day: since from its first millisecond, until to its last', async () => {
    // Local times, as the browser reads the date inputs (it runs in this process's time zone).
    const lastOf2025 = new Date('2025-12-31T23:59:59.999');
    const firstOf2026 = new Date('2026-01-01T00:00:00.000');
    const at = (d: Date, n: number, content: string) => ({ type: 'fact', agentId: 'edges', id: makeUlid(d.getTime(), n), content, createdAt: d.toISOString() });
    await client.call(AdminImport, { records: [at(lastOf2025, 1, 'the last moment of 2025'), at(firstOf2026, 2, 'the first moment of 2026')] });
    await w.page.goto(`${ui.origin}/#/agents/edges`);
    await expectCount(w.page.locator('li.fact'), 2, 'both facts');
    await w.page.fill('input[name=until]', '2025-12-31');
    await waitFor(async () => JSON.stringify(await factTexts(w)) === JSON.stringify(['the last moment of 2025']), 15_000, 'until 2025-12-31 holds its last millisecond');
    await w.page.fill('input[name=until]', '');
    await w.page.fill('input[name=since]', '2026-01-01');
    await waitFor(async () => JSON.stringify(await factTexts(w)) === JSON.stringify(['the first moment of 2026']), 15_000, 'since 2026-01-01 holds its first millisecond');
    await assertClean();
  });

  it('an edit onto the text of another fact merges into it: that fact\'s page stays current and editable', async () => {
    const held = await client.call(MemoryAdd, { agentId: 'merge', content: 'the boat is called Dora' });
    const other = await client.call(MemoryAdd, { agentId: 'merge', content: 'the boat is called Nora' });
    await w.page.goto(`${ui.origin}/#/agents/merge/facts/${other.factId}`);
    await w.page.fill('form.correct textarea[name=content]', 'the boat is called Dora');
    await w.page.click('button:text-is("Save changes")');
    await waitFor(() => w.page.url().endsWith(held.factId), 15_000, 'the page of the fact that held the text');
    const items = w.page.locator('ol.history > li');
    await expectCount(items, 2, 'both versions');
    assert.match((await items.nth(0).textContent()) ?? '', /added\s*current.*the boat is called Dora/s);
    assert.match((await items.nth(1).textContent()) ?? '', /added\s*replaced .* by the next version.*the boat is called Nora/s);
    assert.equal(await w.page.locator('form.correct').count(), 1, 'the current fact can be edited');
    await assertClean();
  });

  it('a fact changed elsewhere since the page read it: the save says so and the history is read again', async () => {
    const fact = await client.call(MemoryAdd, { agentId: 'merge', content: 'the harbour opens at six' });
    await w.page.goto(`${ui.origin}/#/agents/merge/facts/${fact.factId}`);
    await w.page.locator('form.correct').waitFor();
    await client.call(MemoryReflect, { agentId: 'merge', action: 'delete', factId: fact.factId });
    await w.page.fill('form.correct textarea[name=content]', 'the harbour opens at seven');
    await w.page.click('button:text-is("Save changes")');
    await w.page.locator('.note:has-text("This fact was deleted")').waitFor();
    assert.match((await w.page.locator('ol.history > li').first().textContent()) ?? '', /deleted/);
    // The 404 of the refused save is the browser's own console line for a failed request; nothing else went wrong.
    w.problems.splice(0, w.problems.length, ...w.problems.filter((p) => !/status of 404/.test(p)));
    await assertClean();
  });

  it('a browser without the session that opens the page without the token is told to open the printed address', async () => {
    const context = await w.browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    watch(page, ui.origin, problems);
    await page.goto(`${ui.origin}/`);
    await page.locator('.error:has-text("open the address memoryctl ui printed")').waitFor();
    // The browser's own console line for the refused request is all that went wrong.
    assert.deepEqual(problems.filter((p) => !/status of 401/.test(p)), []);
    await context.close();
  });
});
