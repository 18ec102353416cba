// One fact: every version of it (when, what changed, what became of it),
// and, while it is current, its text and tags to correct, or delete.
import type { FactVersion, MemoryHistory, MemoryReflect } from '@memoryd/protocol';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call } from '../api.js';
import { tagsOf, when } from '../format.js';
import { useLoad } from '../load.js';
import { Confirm, ErrorNote, RecordHead, TagList } from '../parts.js';
import { go, href } from '../route.js';

/** Tags compared as the reader sees them: the same set, in any order. */
function sameTags(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((t) => y.has(t));
}

/**
 * What each version changed from the one it replaced: added, text, tags.
 * A version replaced a predecessor only when written as it was replaced:
 * an update onto the text of a fact that already existed (a merge) leaves
 * that fact "added", and the merged one "replaced by" it.
 */
function changesOf(versions: readonly FactVersion[]): Map<string, string> {
  const replaced = new Map<string, FactVersion>();
  for (const v of versions) {
    const next = versions.find((n) => n.id === v.supersededBy);
    if (next !== undefined && next.createdAt >= (v.updatedAt ?? v.createdAt)) replaced.set(next.id, v);
  }
  const changes = new Map<string, string>();
  for (const v of versions) {
    const before = replaced.get(v.id);
    const words = before === undefined ? [] : [before.content !== v.content ? 'text' : '', sameTags(before.tags, v.tags) ? '' : 'tags'].filter((w) => w !== '');
    changes.set(v.id, before === undefined ? 'added' : words.length === 0 ? 'written again' : `${words.join(' and ')} changed`);
  }
  return changes;
}

/** What became of a version, with the link to the one that replaced it. */
function Fate({ agentId, version }: { agentId: string; version: FactVersion }) {
  if (version.deletedAt !== undefined) return html`<span class="fate deleted">deleted ${when(version.deletedAt)}</span>`;
  if (version.supersededBy !== undefined) {
    return html`<span class="fate">replaced ${version.updatedAt === undefined ? '' : when(version.updatedAt)} by <a href=${href({ view: 'fact', agentId, factId: version.supersededBy })}>the next version</a></span>`;
  }
  return html`<span class="fate current">current</span>`;
}

/** The edit form of a current fact, and its delete button behind a confirmation. */
function Correct({ agentId, version, onChanged }: { agentId: string; version: FactVersion; onChanged(): void }) {
  const [content, setContent] = useState(version.content);
  const [tagText, setTagText] = useState((version.tags ?? []).join(', '));
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setContent(version.content);
    setTagText((version.tags ?? []).join(', '));
  }, [version.id]);
  const tags = tagsOf(tagText);
  const textChanged = content !== version.content;
  const tagsChanged = !sameTags(tags, version.tags);
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      // Changed elsewhere since this page read it (an agent updated or deleted it): read its history again.
      if (err instanceof ApiError && err.status === 404) {
        setError(new Error('This fact changed since the page read it: its history below says what it is now.'));
        onChanged();
      } else setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const r = await call<typeof MemoryReflect>('memory.reflect', { agentId, action: 'update', factId: version.id, ...(textChanged ? { content } : {}), ...(tagsChanged ? { tags } : {}) });
      if (r.supersededBy !== undefined) go({ view: 'fact', agentId, factId: r.supersededBy });
    });
  };
  const remove = (ok: boolean) => {
    setAsking(false);
    if (ok) void run(async () => {
      await call<typeof MemoryReflect>('memory.reflect', { agentId, action: 'delete', factId: version.id });
      onChanged();
    });
  };
  return html`<form class="correct" onSubmit=${save}>
    <label>Text <textarea name="content" required rows="4" value=${content} onInput=${(e: Event) => setContent((e.target as HTMLTextAreaElement).value)} /></label>
    <label>Tags <input name="tags" placeholder="tag, another" value=${tagText} onInput=${(e: Event) => setTagText((e.target as HTMLInputElement).value)} /></label>
    <div class="actions">
      <button type="submit" disabled=${busy || (!textChanged && !tagsChanged) || content.trim() === ''}>Save changes</button>
      <button type="button" class="danger" disabled=${busy} onClick=${() => setAsking(true)}>Delete…</button>
    </div>
    <${ErrorNote} error=${error} />
    <${Confirm} open=${asking} question="Delete this fact? Agents will no longer find it; its history stays." yes="Delete" onAnswer=${remove} />
  </form>`;
}

export function FactView({ agentId, factId }: { agentId: string; factId: string }) {
  const history = useLoad(() => call<typeof MemoryHistory>('memory.history', { agentId, factId }), [agentId, factId]);
  const versions = history.data?.versions ?? [];
  const asked = versions.find((v) => v.id === factId);
  // The one version neither replaced nor deleted; the list is by time, and a merge puts a replaced version last.
  const current = versions.find((v) => v.supersededBy === undefined && v.deletedAt === undefined);
  const changes = changesOf(versions);
  return html`<section class="fact-page">
    <${RecordHead} kind="Fact" id=${factId} back=${{ view: 'facts', agentId }} backLabel=${`All of ${agentId}'s facts`} />
    <${ErrorNote} error=${history.error} />
    ${asked === undefined ? null : asked === current ? html`<${Correct} agentId=${agentId} version=${asked} onChanged=${history.reload} />` : html`<p class="note" role="status">
      ${current === undefined ? 'This fact was deleted; what it said is kept below.' : html`This version was replaced. <a href=${href({ view: 'fact', agentId, factId: current.id })}>See the current one</a>.`}
    </p>`}
    <h2>History</h2>
    <ol class="history">
      ${versions.map((v) => html`<li key=${v.id} aria-current=${v.id === factId ? 'true' : undefined}>
        <div class="meta"><time datetime=${v.createdAt}>${when(v.createdAt)}</time> <strong>${changes.get(v.id)}</strong> <${Fate} agentId=${agentId} version=${v} /></div>
        <p class="content">${v.content}</p>
        <${TagList} tags=${v.tags} />
      </li>`)}
    </ol>
  </section>`;
}
