// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// Meaning search through a real daemon (docs/embeddings.md): facts embedded
// in the background by a fake Ollama or OpenAI-compatible server on
// 127.0.0.1 whose vectors carry meaning (GloVe averages), a paraphrase found
// with no word in common, exact words still first, and every way a provider
// fails: down, hung, garbage, wrong dimensions, a refused key. None of them
// fails or slows a write or a search, and what waits is embedded once the
// provider is back, across restarts.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AdminReembed, DaemonStatus, MemoryAdd, MemoryReflect, MemorySearch, type ResultOf } from '@memoryd/protocol';
import {
  cleanupAll,
  type DaemonHandle,
  type FakeEmbedder,
  loadGlove,
  spawnDaemon,
  startDaemon,
  startFakeEmbedder,
  tempDir,
  trackCloser,
  waitFor,
  withTimeout,
} from '@memoryd/test-support';
import { connect, type RpcClient } from './helpers/rpc.js';

after(cleanupAll);

const AGENT = 'maya-home';
const FACTS = [
  'Maya prefers green tea over coffee in the morning.',
  'The deploy pipeline runs every Friday at noon.',
  'Her dentist appointment is on March 3rd.',
  'The wifi password is stored in the kitchen drawer.',
  'Maya is allergic to peanuts and shellfish.',
  'The car needs new tyres before the winter.',
];

/** Bound on the background queue embedding a few facts (its first backoff is 1 s, doubling). */
const EMBED_WAIT_MS = 20_000;

async function fake(options: Parameters<typeof startFakeEmbedder>[0] = {}): Promise<FakeEmbedder> {
  const server = await startFakeEmbedder(options);
  trackCloser(() => server.close());
  return server;
}

async function daemon(dir: string, args: string[]): Promise<{ d: DaemonHandle; c: RpcClient }> {
  const d = await startDaemon({ socket: join(dir, 'd.sock'), dataDir: join(dir, 'data'), args });
  const c = await connect(d.socket);
  trackCloser(() => c.close());
  return { d, c };
}

type Embeddings = NonNullable<ResultOf<typeof DaemonStatus>['embeddings']>;

async function embeddingsOf(c: RpcClient): Promise<Embeddings> {
  const s = await c.ok(DaemonStatus, {});
  assert.ok(s.embeddings !== undefined, 'status carries embeddings');
  return s.embeddings;
}

async function settled(c: RpcClient, what = 'every fact embedded'): Promise<Embeddings> {
  let last: Embeddings | undefined;
  await waitFor(
    async () => {
      last = await embeddingsOf(c);
      return last.pending === 0 && last.dimensions > 0 && last.lastError === undefined;
    },
    EMBED_WAIT_MS,
    what,
  );
  return last!;
}

async function addAll(c: RpcClient, facts = FACTS): Promise<string[]> {
  const ids: string[] = [];
  for (const content of facts) ids.push((await c.ok(MemoryAdd, { agentId: AGENT, content })).factId);
  return ids;
}

async function search(c: RpcClient, query: string, limit = 3): Promise<string[]> {
  return (await c.ok(MemorySearch, { agentId: AGENT, query, limit })).facts.map((f) => f.content);
}

/**
 * Bound of a call that must not hang, and only that: a search waits out the
 * query bound (2 s) on a hung provider, which a loaded machine may stretch.
 * What the tests pin is shown by the fake's request count and the store's
 * state, never by how long a call took.
 */
const HANG_GUARD_MS = 30_000;

/** A search answered (bounded only against a hang), its facts' texts. */
async function searchGuarded(c: RpcClient, query: string, limit = 3): Promise<string[]> {
  const r = await c.call(MemorySearch.method, { agentId: AGENT, query, limit }, HANG_GUARD_MS);
  assert.equal(r.error, undefined, `${query}: ${JSON.stringify(r.error)}`);
  return (r.result as ResultOf<typeof MemorySearch>).facts.map((f) => f.content);
}

before(async () => {
  await loadGlove();
});

describe('meaning search with an embedder', () => {
  it('finds a paraphrase that shares no word, keeps exact words first, and reports status', async () => {
    const server = await fake();
    const dir = tempDir('embed-');
    const { c } = await daemon(dir, ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    await addAll(c);
    const state = await settled(c);
    assert.deepEqual(state, { embedder: 'ollama', model: 'fake', dimensions: 100, pending: 0 });

    // No word in common: lexical search finds nothing; meaning search finds the tea.
    const found = await c.ok(MemorySearch, { agentId: AGENT, query: 'favourite hot beverage', limit: 3 });
    assert.equal(found.facts[0]?.content, FACTS[0], `tea first: ${JSON.stringify(found.facts.map((f) => f.content))}`);
    assert.ok(found.facts.every((f) => typeof f.score === 'number' && f.score >= 0 && f.score <= 1), 'fused scores in 0-1');
    // Exact words keep rank 1.
    assert.equal((await search(c, 'deploy pipeline Friday'))[0], FACTS[1]);
    assert.equal((await search(c, 'wifi password'))[0], FACTS[3]);
  });

  it('drops a fact from meaning search when it is deleted, and embeds its update', async () => {
    const server = await fake();
    const { c } = await daemon(tempDir('embed-'), ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    const ids = await addAll(c);
    await settled(c);
    await c.ok(MemoryReflect, { agentId: AGENT, action: 'delete', factId: ids[0]! });
    assert.ok(!(await search(c, 'favourite hot beverage', 10)).includes(FACTS[0]!), 'a deleted fact is never found');
    const updated = await c.ok(MemoryReflect, { agentId: AGENT, action: 'update', factId: ids[5]!, content: 'Maya drinks espresso after lunch.' });
    assert.ok(updated.supersededBy !== undefined);
    await settled(c);
    const got = await search(c, 'favourite hot beverage', 3);
    assert.equal(got[0], 'Maya drinks espresso after lunch.');
    assert.ok(!got.includes(FACTS[5]!), 'the superseded version is gone');
  });

  it('keeps vectors across a restart and embeds only what is new; a new model embeds everything again', async () => {
    const server = await fake();
    const dir = tempDir('embed-');
    const args = ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake'];
    let { d, c } = await daemon(dir, args);
    await addAll(c);
    await settled(c);
    await c.close();
    await d.stop();
    const textsBefore = server.texts;

    ({ d, c } = await daemon(dir, args));
    await settled(c, 'vectors loaded after the restart');
    assert.equal(server.texts, textsBefore, 'no fact embedded again');
    assert.equal((await search(c, 'favourite hot beverage', 1))[0], FACTS[0]);
    await c.close();
    await d.stop();

    ({ d, c } = await daemon(dir, ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'nomic-embed-text']));
    await settled(c, 'every fact embedded by the new model');
    assert.ok(server.texts >= textsBefore + FACTS.length, 'every fact embedded again by the other model');
    assert.equal((await embeddingsOf(c)).model, 'nomic-embed-text');
    await c.close();
    await d.stop();

    // The store with its vectors passes --verify (LevelDB's check; PostgreSQL has its own tools).
    if (process.env['MEMORYD_TEST_STORE'] === 'postgres') return;
    const verify = await spawnDaemon({ socket: join(dir, 'd.sock'), dataDir: join(dir, 'data'), args: ['--verify'], wait: 'exit' });
    assert.equal((await verify.exited).code, 0, verify.stdout() + verify.stderr());
  });

  it('rebuild embeds every fact again', async () => {
    const server = await fake();
    const { c } = await daemon(tempDir('embed-'), ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    await addAll(c);
    await settled(c);
    const before = server.texts;
    assert.deepEqual(await c.ok(AdminReembed, {}), { pending: FACTS.length });
    await settled(c);
    assert.ok(server.texts >= before + FACTS.length);
    assert.equal((await search(c, 'favourite hot beverage', 1))[0], FACTS[0]);
  });

  it('without an embedder: no embeddings in status, admin.reembed is -32602 with a sentence', async () => {
    const { c } = await daemon(tempDir('embed-'), []);
    const s = await c.ok(DaemonStatus, {});
    assert.equal(s.embeddings, undefined);
    const e = await c.fail('admin.reembed', {});
    assert.equal(e.code, -32602);
    assert.match(e.message, /without an embedder/);
  });
});

describe('a provider that fails never fails a write or a search', () => {
  it('down at start: writes and searches are answered without it, lexically; facts wait, and are embedded when it is back', async () => {
    const server = await fake({ mode: 'down' });
    const dir = tempDir('embed-');
    const args = ['--embedder', 'openai', '--embed-url', server.url, '--embed-model', 'fake'];
    let { d, c } = await daemon(dir, args);
    // Each add is acknowledged while the provider refuses: none waits for its vector (an add that
    // did would fail, or hang past its bound while the queue backs off).
    await withTimeout(addAll(c), HANG_GUARD_MS, 'the adds');
    await waitFor(async () => (await embeddingsOf(c)).lastError !== undefined, EMBED_WAIT_MS, 'the failure reported');
    const state = await embeddingsOf(c);
    assert.equal(state.pending, FACTS.length, 'every fact acknowledged unembedded');
    assert.match(state.lastError!, /HTTP 503/);
    assert.equal((await searchGuarded(c, 'deploy pipeline'))[0], FACTS[1], 'lexical answer');
    assert.equal((await search(c, 'favourite hot beverage')).length, 0, 'no meaning without the provider, and no error');

    // Stopped while facts wait: what is pending is read from the store at the next start.
    await c.close();
    await d.stop();
    server.setMode('ok');
    ({ d, c } = await daemon(dir, args));
    await settled(c, 'the waiting facts embedded after the restart');
    assert.equal((await search(c, 'favourite hot beverage', 1))[0], FACTS[0]);
  });

  it('hung: a search answers lexically once the query bound runs out, and says why; searches and adds meanwhile do not wait', async () => {
    const server = await fake();
    const { c } = await daemon(tempDir('embed-'), ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    await addAll(c);
    await settled(c);
    server.setMode('hang');
    // The provider is asked for the query's vector and never answers (until it is closed): the
    // search is answered all the same, by its words, and the query bound is what ran out.
    const asked = server.requests;
    assert.equal((await searchGuarded(c, 'deploy pipeline friday noon'))[0], FACTS[1]);
    assert.equal(server.requests, asked + 1, 'the search asked the provider once, and was answered without its vector');
    assert.match((await embeddingsOf(c)).lastError ?? '', /did not embed a query within 2000 ms/);
    // Meanwhile (10 s) searches do not ask again, so do not wait again.
    assert.equal((await searchGuarded(c, 'car tyres winter'))[0], FACTS[5]);
    assert.equal(server.requests, asked + 1, 'the next search did not ask the hung provider');
    // An add is acknowledged while the queue's call for its vector hangs: that call ends only
    // with its 60 s bound, past the guard, so an add that waited for it would never be answered.
    const added = await c.call(MemoryAdd.method, { agentId: AGENT, content: 'The plumber comes on Tuesday.' }, HANG_GUARD_MS);
    assert.equal(added.error, undefined, JSON.stringify(added.error));
    await waitFor(() => server.requests > asked + 1, EMBED_WAIT_MS, 'the queue to ask the hung provider for the new fact');
    const waiting = await embeddingsOf(c);
    assert.equal(waiting.pending, 1, 'the added fact waits for its vector');
    assert.match(waiting.lastError ?? '', /did not embed a query/, 'the call for its vector has not ended, and the add was answered');
  });

  it('SIGTERM while the provider hangs: the calls in flight are cancelled, the store closed, exit 0', async () => {
    const server = await fake();
    const { d, c } = await daemon(tempDir('embed-'), ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    await addAll(c);
    await settled(c);
    server.setMode('hang');
    const asked = server.requests;
    await c.ok(MemoryAdd, { agentId: AGENT, content: 'The plumber comes on Tuesday.' });
    await waitFor(() => server.requests > asked, EMBED_WAIT_MS, 'the queue waits on the hung provider');
    // A search waits on its query's vector meanwhile.
    const searching = c.call(MemorySearch.method, { agentId: AGENT, query: 'deploy pipeline', limit: 3 });
    await waitFor(() => server.requests > asked + 1, EMBED_WAIT_MS, 'the search waits on the hung provider');
    d.signal('SIGTERM');
    const exit = await withTimeout(d.exited, 15_000, 'the daemon to exit');
    // Past its stop deadline (4.5 s) the daemon would exit 1 without closing the store.
    assert.deepEqual(exit, { code: 0, signal: null }, d.stderr());
    assert.match(d.stderr(), /"msg":"stopped"/);
    const answer = await searching;
    assert.ok('result' in answer, 'the search in flight was answered');
    if (process.env['MEMORYD_TEST_STORE'] !== 'postgres') {
      // LevelDB's search index images are written as the store closes.
      assert.ok(readdirSync(join(d.dataDir, 'search')).length > 0, 'the index image written');
    }
  });

  it('garbage is reported and waited out; vectors of other dimensions stop the queue until a rebuild', async () => {
    const server = await fake();
    const { c } = await daemon(tempDir('embed-'), ['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake']);
    await addAll(c);
    await settled(c);
    server.setMode('garbage');
    await c.ok(MemoryAdd, { agentId: AGENT, content: 'The plumber comes on Tuesday.' });
    await waitFor(async () => /not JSON/.test((await embeddingsOf(c)).lastError ?? ''), EMBED_WAIT_MS, 'garbage reported');
    const failing = await embeddingsOf(c);
    assert.equal(failing.stopped, undefined, 'a failure that waiting may mend does not stop the queue');
    assert.ok(failing.lastErrorAt !== undefined && Date.parse(failing.lastErrorAt) > 0, 'the failure is dated');
    server.setMode('ok');
    await settled(c, 'embedded once the provider is back, the error cleared');

    server.setMode('wrong-dimension');
    await c.ok(MemoryAdd, { agentId: AGENT, content: 'The gutters need cleaning in autumn.' });
    await waitFor(async () => (await embeddingsOf(c)).stopped === true, EMBED_WAIT_MS, 'vectors of other dimensions stop the queue');
    const stopped = await embeddingsOf(c);
    assert.match(stopped.lastError ?? '', /101 dimensions, the stored vectors have 100; .*memoryctl embeddings rebuild/);
    assert.equal(stopped.pending, 1);
    assert.equal((await search(c, 'gutters'))[0], 'The gutters need cleaning in autumn.', 'found by its words meanwhile');
    // The model changed for good: a rebuild embeds every fact again, in its dimensions.
    await c.ok(AdminReembed, {});
    const rebuilt = await settled(c, 'every fact embedded again after the rebuild');
    assert.equal(rebuilt.dimensions, 101);
    assert.equal(rebuilt.stopped, undefined);
  });

  it('an OpenAI-compatible server that wants a key: refused without it, served with --embed-key-file', async () => {
    const server = await fake({ key: 'sk-test-123' });
    const dir = tempDir('embed-');
    let { d, c } = await daemon(dir, ['--embedder', 'openai', '--embed-url', `${server.url}/v1`, '--embed-model', 'fake']);
    await addAll(c, FACTS.slice(0, 2));
    await waitFor(async () => /HTTP 401/.test((await embeddingsOf(c)).lastError ?? ''), EMBED_WAIT_MS, '401 reported');
    await c.close();
    await d.stop();
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'sk-test-123\n', { mode: 0o600 });
    ({ d, c } = await daemon(dir, ['--embedder', 'openai', '--embed-url', server.url, '--embed-model', 'fake', '--embed-key-file', keyFile]));
    await settled(c);
    assert.ok(!d.stderr().includes('sk-test-123'), 'the key is never logged');
  });

  it('refuses embedding flags that would do nothing (exit 2), and a key file it cannot read (exit 1, one line)', async () => {
    const dir = tempDir('embed-');
    for (const [args, code, message] of [
      [['--embed-model', 'x'], 2, /--embed-model needs --embedder/],
      [['--embedder', 'bert'], 2, /--embedder must be one of none, ollama, openai, local/],
      [['--embedder', 'ollama', '--embed-url', 'ftp://x'], 2, /--embed-url must be an http/],
      [['--embedder', 'ollama', '--embed-key-file', join(dir, 'k')], 2, /--embed-key-file is for --embedder openai/],
      [['--embedder', 'openai', '--embed-key-file', join(dir, 'missing')], 1, /^memoryd: cannot start: cannot read --embed-key-file .*missing: ENOENT/],
    ] as const) {
      const d = await spawnDaemon({ socket: join(dir, 'd.sock'), dataDir: join(dir, 'data'), args: [...args], wait: 'exit' });
      const exit = await d.exited;
      assert.equal(exit.code, code, `${args.join(' ')}: exit ${code} (${d.stderr()})`);
      assert.match(d.lastStderrLine(), message);
    }
  });
});
