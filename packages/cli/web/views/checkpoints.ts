// An agent's checkpoints, oldest first as the daemon pages them, and one
// checkpoint's state as formatted JSON.
import type { CheckpointList, CheckpointResume } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { when } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorNote, Pager, type Pages, RecordHead, pageBack, pageOn } from '../parts.js';
import { href } from '../route.js';

const PAGE = 25;

export function CheckpointsView({ agentId }: { agentId: string }) {
  const [pages, setPages] = useState<Pages>({ current: undefined, before: [] });
  const readFor = JSON.stringify([agentId, pages.current]);
  const list = useLoad(
    () => call<typeof CheckpointList>('checkpoint.list', { agentId, limit: PAGE, ...(pages.current === undefined ? {} : { after: pages.current }) }).then((r) => ({ ...r, readFor })),
    [readFor],
  );
  // The last page stays in view while the next one is read, but pages nothing: a second click must not skip one.
  const data = list.data?.readFor === readFor ? list.data : undefined;
  const shown = list.data;
  return html`<section class="checkpoints">
    <header class="view-head">
      <h1>${agentId}: checkpoints</h1>
      <nav aria-label="agent"><a href=${href({ view: 'facts', agentId })}>Facts</a></nav>
    </header>
    <${ErrorNote} error=${list.error} />
    <p class="summary">Oldest first</p>
    ${data !== undefined && data.checkpoints.length === 0 ? html`<p class="empty">This agent saved no checkpoint.</p>` : null}
    <ul class="checkpoint-list" aria-busy=${list.loading}>${(shown?.checkpoints ?? []).map((c) => html`<li key=${c.id}>
      <a href=${href({ view: 'checkpoint', agentId, checkpointId: c.id })}><time datetime=${c.createdAt}>${when(c.createdAt)}</time></a>
      ${c.messageCount === undefined ? null : html`<span class="meta">${c.messageCount} messages</span>`}
      <code>${c.id}</code>
    </li>`)}</ul>
    ${data === undefined ? null : html`<${Pager} backLabel="Earlier" moreLabel="Later"
      onBack=${pages.before.length === 0 ? undefined : () => setPages(pageBack(pages))}
      onMore=${data.next === undefined ? undefined : () => setPages(pageOn(pages, data.next!))} />`}
  </section>`;
}

export function CheckpointView({ agentId, checkpointId }: { agentId: string; checkpointId: string }) {
  const read = useLoad(() => call<typeof CheckpointResume>('checkpoint.resume', { agentId, checkpointId }), [agentId, checkpointId]);
  const checkpoint = read.data !== undefined && 'checkpoint' in read.data ? read.data.checkpoint : undefined;
  return html`<section class="checkpoint">
    <${RecordHead} kind="Checkpoint" id=${checkpointId} back=${{ view: 'checkpoints', agentId }} backLabel=${`All of ${agentId}'s checkpoints`} />
    <${ErrorNote} error=${read.error} />
    ${checkpoint === undefined ? null : html`<p class="meta">Saved <time datetime=${checkpoint.createdAt}>${when(checkpoint.createdAt)}</time>${checkpoint.messageCount === undefined ? '' : `, after ${checkpoint.messageCount} messages`}</p>
      <pre class="state" tabindex="0" aria-label="state">${JSON.stringify(checkpoint.state, null, 2)}</pre>`}
  </section>`;
}
