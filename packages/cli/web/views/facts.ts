// An agent's facts: newest first a page at a time, or the best matches of
// what is typed in the search box; both under the tag and time filters.
// Reading the first page is one daemon call, and so is each search.
import type { Fact, MemoryAdd, MemoryList, MemorySearch, MemoryTags } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { count, dayEnd, dayStart, tagsOf } from '../format.js';
import { useLoad, useSettled } from '../load.js';
import { ErrorNote, ExportButton, FactItem, Pager, type Pages, pageBack, pageOn } from '../parts.js';
import { href } from '../route.js';

/** Facts a page. */
const PAGE = 25;
/** Best matches a search shows. */
const MATCHES = 20;
/** How long typing must pause before a search is sent, in ms. */
const TYPING_MS = 200;

interface Filters {
  tags?: string[];
  since?: string;
  until?: string;
}

interface Shown {
  facts: Fact[];
  next?: string;
  searched: boolean;
  /** What was read: the view's key and the page's cursor. An answer for another one is shown, but not paged from. */
  readFor: string;
}

/** A date input's day, or undefined when it bounds nothing (empty, or not a real day the daemon's times can say). */
function dayOf(day: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && dayStart(day) !== undefined ? day : undefined;
}

/** The filters as the daemon takes them, from what the inputs hold. */
function filtersOf(tagText: string, sinceDay: string, untilDay: string): Filters {
  const tags = tagsOf(tagText);
  const since = dayOf(sinceDay) === undefined ? undefined : dayStart(sinceDay);
  // The last day of 9999 has no next day to end at: it bounds nothing.
  const until = dayOf(untilDay) === undefined ? undefined : dayEnd(untilDay);
  return { ...(tags.length > 0 ? { tags } : {}), ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

/** What is wrong with the date inputs, in a sentence, or undefined. */
function datesProblem(sinceDay: string, untilDay: string): Error | undefined {
  const bad = [['Since', sinceDay], ['Until', untilDay]].filter(([, d]) => d !== '' && dayOf(d!) === undefined).map(([n]) => n);
  return bad.length === 0 ? undefined : new Error(`${bad.join(' and ')}: not a day from year 0000 to 9999; the filter is left out.`);
}

/** The filter inputs, with the agent's tags offered once the tag input is first used. */
function FilterBar({ agentId, tagText, sinceDay, untilDay, set }: { agentId: string; tagText: string; sinceDay: string; untilDay: string; set(patch: Partial<Record<'tagText' | 'sinceDay' | 'untilDay', string>>): void }) {
  const [wantTags, setWantTags] = useState(false);
  const tags = useLoad(wantTags ? () => call<typeof MemoryTags>('memory.tags', { agentId }) : undefined, [agentId, wantTags]);
  const any = tagText !== '' || sinceDay !== '' || untilDay !== '';
  return html`<fieldset class="filters">
    <legend>Filters</legend>
    <label>Tags <input name="tags" list="agent-tags" placeholder="tag, another" value=${tagText} onFocus=${() => setWantTags(true)} onInput=${(e: Event) => set({ tagText: (e.target as HTMLInputElement).value })} /></label>
    <datalist id="agent-tags">${(tags.data?.tags ?? []).map((t) => html`<option key=${t.tag} value=${t.tag}>${count(t.count, 'fact')}</option>`)}</datalist>
    <label>Since <input name="since" type="date" value=${sinceDay} onInput=${(e: Event) => set({ sinceDay: (e.target as HTMLInputElement).value })} /></label>
    <label>Until <input name="until" type="date" value=${untilDay} onInput=${(e: Event) => set({ untilDay: (e.target as HTMLInputElement).value })} /></label>
    ${any ? html`<button type="button" onClick=${() => set({ tagText: '', sinceDay: '', untilDay: '' })}>Clear filters</button>` : null}
  </fieldset>`;
}

/** A form that adds a fact to the agent, saying whether it was new. */
function AddFact({ agentId, onAdded }: { agentId: string; onAdded(): void }) {
  const [content, setContent] = useState('');
  const [tagText, setTagText] = useState('');
  const [said, setSaid] = useState<{ text: string; factId: string } | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const tags = tagsOf(tagText);
      const r = await call<typeof MemoryAdd>('memory.add', { agentId, content, ...(tags.length > 0 ? { tags } : {}) });
      setSaid({ text: r.duplicate === true ? 'The agent already remembers this:' : 'Added:', factId: r.factId });
      setContent('');
      setTagText('');
      onAdded();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return html`<details class="add">
    <summary>Add a fact</summary>
    <form onSubmit=${submit}>
      <label>Text <textarea name="content" required rows="3" value=${content} onInput=${(e: Event) => setContent((e.target as HTMLTextAreaElement).value)} /></label>
      <label>Tags <input name="tags" placeholder="tag, another" value=${tagText} onInput=${(e: Event) => setTagText((e.target as HTMLInputElement).value)} /></label>
      <button type="submit" disabled=${busy || content.trim() === ''}>Add</button>
    </form>
    ${said === undefined ? null : html`<p class="note" role="status">${said.text} <a href=${href({ view: 'fact', agentId, factId: said.factId })}>${said.factId}</a></p>`}
    <${ErrorNote} error=${error} />
  </details>`;
}

export function FactsView({ agentId }: { agentId: string }) {
  const [query, setQuery] = useState('');
  const [inputs, setInputs] = useState({ tagText: '', sinceDay: '', untilDay: '' });
  const settledQuery = useSettled(query.trim(), TYPING_MS);
  const settled = useSettled(inputs, TYPING_MS);
  const filters = filtersOf(settled.tagText, settled.sinceDay, settled.untilDay);
  const key = JSON.stringify([agentId, settledQuery, filters]);
  // Paging starts over whenever what is shown changes (and stays over when it changes back).
  const firstPage: Pages & { key: string } = { key, current: undefined, before: [] };
  const [pages, setPages] = useState(firstPage);
  const at = pages.key === key ? pages : firstPage;
  useEffect(() => {
    if (pages.key !== key) setPages(firstPage);
  }, [key]);
  const [round, setRound] = useState(0);
  const readFor = JSON.stringify([key, at.current, round]);
  const shown = useLoad<Shown>(
    () =>
      settledQuery !== ''
        ? call<typeof MemorySearch>('memory.search', { agentId, query: settledQuery, limit: MATCHES, ...filters }).then((r) => ({ facts: r.facts, searched: true, readFor }))
        : call<typeof MemoryList>('memory.list', { agentId, limit: PAGE, order: 'newest', ...filters, ...(at.current === undefined ? {} : { after: at.current }) }).then((r) => ({ ...r, searched: false, readFor })),
    [readFor],
  );
  const data = shown.data;
  // Until the answer for what is asked now arrives, the last one stays in view, but its cursor pages nothing.
  const fresh = data !== undefined && data.readFor === readFor;
  const filtered = Object.keys(filters).length > 0;
  const back = at.before.length === 0 ? undefined : () => setPages(pageBack(at));
  return html`<section class="facts">
    <header class="view-head">
      <h1>${agentId}</h1>
      <nav aria-label="agent">
        <a href=${href({ view: 'checkpoints', agentId })}>Checkpoints</a>
        <${ExportButton} agentId=${agentId} label="Export this agent" />
      </nav>
    </header>
    <form role="search" onSubmit=${(e: Event) => e.preventDefault()}>
      <input id="search" type="search" name="q" data-search aria-label="Search this agent's facts" placeholder="Search facts (press / )" autocomplete="off" value=${query} onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)} />
      <${FilterBar} agentId=${agentId} ...${inputs} set=${(patch: Partial<typeof inputs>) => setInputs({ ...inputs, ...patch })} />
    </form>
    <${AddFact} agentId=${agentId} onAdded=${() => (setPages(firstPage), setRound((r) => r + 1))} />
    <${ErrorNote} error=${datesProblem(inputs.sinceDay, inputs.untilDay) ?? shown.error} />
    <p class="summary" aria-live="polite">${
      !fresh ? (shown.error !== undefined && !shown.loading ? 'Could not read this page.' : 'Reading…') : data.searched ? `${count(data.facts.length, 'match', 'matches')}, best first${filtered ? ', filtered' : ''}` : `Newest first${filtered ? ', filtered' : ''}`
    }</p>
    ${fresh && data.facts.length === 0 ? html`<p class="empty">${data.searched ? 'Nothing matches.' : filtered ? 'No fact passes the filters.' : 'This agent has no facts.'}</p>` : null}
    <ul class="fact-list" aria-busy=${shown.loading}>${(data?.facts ?? []).map((f) => html`<${FactItem} key=${f.id} agentId=${agentId} fact=${f} />`)}</ul>
    ${fresh && !data.searched
      ? html`<${Pager} backLabel="Newer" moreLabel="Older" onBack=${back} onMore=${data.next === undefined ? undefined : () => setPages(pageOn(at, data.next!))} />`
      : shown.error !== undefined
        ? html`<${Pager} backLabel="Newer" moreLabel="Older" onBack=${back} />`
        : null}
  </section>`;
}
