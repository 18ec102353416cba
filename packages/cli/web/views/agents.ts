// Every agent with something remembered, with its counts.
import type { AgentList } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { call } from '../api.js';
import { count } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorNote } from '../parts.js';
import { href } from '../route.js';

export function AgentsView() {
  const list = useLoad(() => call<typeof AgentList>('agent.list', {}), []);
  const agents = list.data?.agents;
  return html`<section class="agents">
    <header class="view-head"><h1>Agents</h1></header>
    <${ErrorNote} error=${list.error} />
    ${agents !== undefined && agents.length === 0 ? html`<p class="empty">No agent has remembered anything yet.</p>` : null}
    <ul class="agent-list">${(agents ?? []).map((a) => html`<li key=${a.agentId}>
      <a class="agent" href=${href({ view: 'facts', agentId: a.agentId })}>${a.agentId}</a>
      <span class="meta">${count(a.facts, 'fact')}</span>
      <a class="meta" href=${href({ view: 'checkpoints', agentId: a.agentId })}>${count(a.checkpoints, 'checkpoint')}</a>
    </li>`)}</ul>
  </section>`;
}
