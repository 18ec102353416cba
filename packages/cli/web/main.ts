// The page of memoryctl ui: a header to move between views, the view the
// address names, and `/` to jump to the search box.
import { html, render } from 'htm/preact';
import { useEffect } from 'preact/hooks';
import { startSession } from './api.js';
import { ErrorNote } from './parts.js';
import { type Route, href, useRoute } from './route.js';
import { AgentsView } from './views/agents.js';
import { CheckpointView, CheckpointsView } from './views/checkpoints.js';
import { FactView } from './views/fact.js';
import { FactsView } from './views/facts.js';
import { StatusView } from './views/status.js';
import { TransferView } from './views/transfer.js';

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'agents':
      return html`<${AgentsView} />`;
    case 'status':
      return html`<${StatusView} />`;
    case 'transfer':
      return html`<${TransferView} />`;
    case 'facts':
      return html`<${FactsView} key=${route.agentId} agentId=${route.agentId} />`;
    case 'fact':
      return html`<${FactView} agentId=${route.agentId} factId=${route.factId} />`;
    case 'checkpoints':
      return html`<${CheckpointsView} key=${route.agentId} agentId=${route.agentId} />`;
    case 'checkpoint':
      return html`<${CheckpointView} agentId=${route.agentId} checkpointId=${route.checkpointId} />`;
    case 'missing':
      return html`<section><h1>Not here</h1><p>Nothing lives at <code>#/${route.path}</code>. <a href="#/">See the agents</a>.</p></section>`;
  }
}

/** `/` outside a text field focuses the view's search box, as on most sites. */
function useSlashToSearch(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || target.closest('input, textarea, select, [contenteditable]') !== null) return;
      const search = document.querySelector<HTMLInputElement>('[data-search]');
      if (search === null) return;
      e.preventDefault();
      search.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

function App() {
  const route = useRoute();
  useSlashToSearch();
  const here = (view: Route['view']) => (route.view === view ? 'page' : undefined);
  return html`<header class="top">
      <a class="brand" href="#/">memoryd</a>
      <nav aria-label="views">
        <a href=${href({ view: 'agents' })} aria-current=${here('agents')}>Agents</a>
        <a href=${href({ view: 'status' })} aria-current=${here('status')}>Status</a>
        <a href=${href({ view: 'transfer' })} aria-current=${here('transfer')}>Export and import</a>
      </nav>
    </header>
    <main><${View} route=${route} /></main>`;
}

const root = document.getElementById('app')!;
startSession().then(
  () => render(html`<${App} />`, root),
  (err: Error) => render(html`<main><h1>memoryd</h1><${ErrorNote} error=${err} /></main>`, root),
);
