// Export everything as a download; import an export file with a progress
// bar and a report of what was refused, line by line.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { type UploadProgress, upload } from '../api.js';
import { count } from '../format.js';
import { ErrorNote, ExportButton } from '../parts.js';

interface ImportOutcome {
  imported: number;
  skipped: number;
  rejected: Array<{ line: number; reason: string }>;
}

function Outcome({ outcome }: { outcome: ImportOutcome }) {
  return html`<div class="outcome" role="status">
    <p>Imported ${count(outcome.imported, 'record')}, skipped ${outcome.skipped} already there, refused ${outcome.rejected.length}.</p>
    ${outcome.rejected.length === 0 ? null : html`<table class="refused">
      <caption>Refused lines</caption>
      <thead><tr><th scope="col">Line</th><th scope="col">Why</th></tr></thead>
      <tbody>${outcome.rejected.map((r) => html`<tr key=${r.line}><td>${r.line}</td><td>${r.reason}</td></tr>`)}</tbody>
    </table>`}
  </div>`;
}

export function TransferView() {
  const [file, setFile] = useState<File | undefined>(undefined);
  const [progress, setProgress] = useState<UploadProgress | undefined>(undefined);
  const [outcome, setOutcome] = useState<ImportOutcome | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const busy = progress !== undefined && outcome === undefined && error === undefined;
  const start = async (e: Event) => {
    e.preventDefault();
    if (file === undefined) return;
    setOutcome(undefined);
    setError(undefined);
    setProgress({ sent: 0, total: file.size });
    try {
      setOutcome(await upload<ImportOutcome>('/api/import', file, setProgress));
    } catch (err) {
      setError(err as Error);
    }
  };
  return html`<section class="transfer">
    <header class="view-head"><h1>Export and import</h1></header>
    <h2>Export</h2>
    <p>Every fact version and checkpoint of every agent, one JSON record a line, read from one consistent snapshot (as <code>memoryctl export</code> writes it).</p>
    <p><${ExportButton} agentId=${undefined} label="Download everything" /></p>
    <h2>Import</h2>
    <form onSubmit=${start}>
      <label>Export file <input type="file" name="file" accept=".jsonl,.json,.ndjson,application/x-ndjson" onChange=${(e: Event) => setFile((e.target as HTMLInputElement).files?.[0])} /></label>
      <button type="submit" disabled=${file === undefined || busy}>Import</button>
    </form>
    ${progress === undefined ? null : html`<p><progress max=${progress.total} value=${progress.sent} aria-label="import progress">${Math.round((100 * progress.sent) / Math.max(1, progress.total))}%</progress> ${busy ? 'importing…' : error === undefined ? 'done' : 'failed'}</p>`}
    <${ErrorNote} error=${error} />
    ${outcome === undefined ? null : html`<${Outcome} outcome=${outcome} />`}
  </section>`;
}
