// Pieces several views show: an error, a fact in a list, tags, a
// confirmation, a pager.
import type { Fact } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, download } from './api.js';
import { when } from './format.js';
import { type Route, href } from './route.js';

/** What went wrong, in the daemon's words, where the reader looks. */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (error === undefined) return null;
  const code = error instanceof ApiError ? ` (${error.code})` : '';
  return html`<p class="error" role="alert">${error.message}${code}</p>`;
}

/** A fact's tags as small labels. */
export function TagList({ tags }: { tags: readonly string[] | undefined }) {
  if (tags === undefined || tags.length === 0) return null;
  return html`<ul class="tags" aria-label="tags">${tags.map((t) => html`<li key=${t}>${t}</li>`)}</ul>`;
}

/** One fact in a list: its text (a link to its page), tags, when, and its score in a search. */
export function FactItem({ agentId, fact }: { agentId: string; fact: Fact }) {
  return html`<li class="fact" data-fact=${fact.id}>
    <a class="fact-text" href=${href({ view: 'fact', agentId, factId: fact.id })}>${fact.content}</a>
    <div class="meta">
      <${TagList} tags=${fact.tags} />
      <time datetime=${fact.createdAt}>${when(fact.createdAt)}</time>
      ${fact.score === undefined ? null : html`<span class="score" title="relevance">score ${fact.score.toFixed(3)}</span>`}
    </div>
  </li>`;
}

/**
 * Asks before something that cannot be undone, in a modal dialog (Escape
 * or Cancel keeps everything): `onAnswer(true)` only on the confirming
 * button.
 */
export function Confirm({ open, question, yes, onAnswer }: { open: boolean; question: string; yes: string; onAnswer(ok: boolean): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d === null) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  // close, not cancel: a dialog closed any way at all (Escape included) must not stay open in the state.
  return html`<dialog ref=${dialog} class="confirm" onClose=${() => open && onAnswer(false)}>
    <p>${question}</p>
    <div class="actions">
      <button type="button" onClick=${() => onAnswer(false)}>Cancel</button>
      <button type="button" class="danger" onClick=${() => onAnswer(true)}>${yes}</button>
    </div>
  </dialog>`;
}

/** Buttons to the previous and next page, each shown only when there is one. */
export function Pager({ onBack, onMore, backLabel, moreLabel }: { onBack?: () => void; onMore?: () => void; backLabel: string; moreLabel: string }) {
  if (onBack === undefined && onMore === undefined) return null;
  return html`<nav class="pager" aria-label="pages">
    ${onBack === undefined ? html`<span />` : html`<button type="button" onClick=${onBack}>${backLabel}</button>`}
    ${onMore === undefined ? null : html`<button type="button" onClick=${onMore}>${moreLabel}</button>`}
  </nav>`;
}

/** A cursor stack for pages read by `after`: where each page began, so a page back reads that page again. */
export interface Pages {
  /** The cursor the shown page was read from (undefined: the first page). */
  current: string | undefined;
  /** Cursors of the pages before it. */
  before: Array<string | undefined>;
}

/** The page before the shown one, read again from where it began. */
export function pageBack<P extends Pages>(pages: P): P {
  return { ...pages, current: pages.before[pages.before.length - 1], before: pages.before.slice(0, -1) };
}

/** The page after the shown one, from the cursor its answer gave. */
export function pageOn<P extends Pages>(pages: P, next: string): P {
  return { ...pages, current: next, before: [...pages.before, pages.current] };
}

/** A record's heading (what it is, its id small) with the link back to the list it belongs to. */
export function RecordHead({ kind, id, back, backLabel }: { kind: string; id: string; back: Route; backLabel: string }) {
  return html`<header class="view-head">
    <h1>${kind} <small>${id}</small></h1>
    <nav aria-label="agent"><a href=${href(back)}>${backLabel}</a></nav>
  </header>`;
}

/** A button that downloads the export of `agentId` (undefined: everything), saying why when it cannot. */
export function ExportButton({ agentId, label }: { agentId: string | undefined; label: string }) {
  const [error, setError] = useState<Error | undefined>(undefined);
  const start = () => {
    setError(undefined);
    download(agentId).catch((err: Error) => setError(err));
  };
  return html`<span class="export"><button type="button" onClick=${start}>${label}</button><${ErrorNote} error=${error} /></span>`;
}
