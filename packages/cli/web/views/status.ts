// The daemon: who it is, where it keeps what, how much, and how meaning
// search is doing.
import type { DaemonStatus, ResultOf } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { call } from '../api.js';
import { count, duration, when } from '../format.js';
import { useLoad } from '../load.js';
import { ErrorNote } from '../parts.js';

function Embeddings({ e }: { e: ResultOf<typeof DaemonStatus>['embeddings'] }) {
  if (e === undefined) return html`<p>Off: searches match words only (docs/embeddings.md says how to turn meaning search on).</p>`;
  return html`<dl class="pairs">
    <dt>Embedder</dt><dd>${e.embedder}</dd>
    <dt>Model</dt><dd>${e.model}</dd>
    <dt>Dimensions</dt><dd>${e.dimensions}</dd>
    <dt>Pending</dt><dd>${count(e.pending, 'fact')} waiting for a vector</dd>
    <dt>Last error</dt><dd class=${e.lastError === undefined ? '' : 'error'}>${e.lastError === undefined ? 'none' : `${e.lastError}${e.lastErrorAt === undefined ? '' : ` (${when(e.lastErrorAt)})`}`}</dd>
    ${e.stopped === true ? html`<dt>Queue</dt><dd class="error">stopped until memoryd restarts or memoryctl embeddings rebuild</dd>` : null}
  </dl>`;
}

export function StatusView() {
  const status = useLoad(() => call<typeof DaemonStatus>('daemon.status', {}), []);
  const s = status.data;
  return html`<section class="status">
    <header class="view-head"><h1>Status</h1><nav><button type="button" onClick=${status.reload}>Refresh</button></nav></header>
    <${ErrorNote} error=${status.error} />
    ${s === undefined ? null : html`<dl class="pairs">
      <dt>Version</dt><dd>memoryd ${s.daemonVersion}</dd>
      <dt>Up for</dt><dd>${duration(s.uptimeMs)} (pid ${s.pid})</dd>
      <dt>Store</dt><dd>${s.store === 'level' ? 'LevelDB, in the data dir' : s.store}</dd>
      <dt>Data dir</dt><dd><code>${s.dataDir}</code></dd>
      <dt>Socket</dt><dd><code>${s.socket}</code></dd>
      <dt>Health</dt><dd class=${s.health === 'ok' ? '' : 'error'}>${s.health}</dd>
      <dt>Agents</dt><dd>${s.agents.toLocaleString('en')}</dd>
      <dt>Facts</dt><dd>${s.facts.toLocaleString('en')}</dd>
      <dt>Checkpoints</dt><dd>${s.checkpoints.toLocaleString('en')}</dd>
      <dt>Connections</dt><dd>${s.connections}</dd>
    </dl>
    <h2>Meaning search</h2>
    <${Embeddings} e=${s.embeddings} />`}
  </section>`;
}
