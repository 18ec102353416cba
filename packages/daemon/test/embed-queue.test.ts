// store: every backend. run-tests.mjs runs this file again with MEMORYD_TEST_STORE=postgres (ADR 0027).
// Meaning search's queue and loads (embed/embed-queue.ts, vector-loads.ts)
// on a real store, with providers in this process that fail as real ones
// do: one agent's batch that always fails, batches too long for the
// provider's bound, a model the provider does not have, one text it
// refuses, a query that times out, a load that fails, a call that hangs
// until the daemon stops. None of them stops another agent's facts, and
// nothing is retried that waiting cannot mend.
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { DAEMON_VERSION, type Embedder, EmbedderError, Embeddings, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { hashVector, waitFor, withTimeout } from '@memoryd/test-support';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP } from './helpers/postgres.js';
import { openTempStore, useStoreCleanup } from './helpers/store.js';

type VectorStore = ReturnType<MemoryStore['vectors']>;

const ON_PG = process.env['MEMORYD_TEST_STORE'] === 'postgres';
const SKIP = ON_PG ? PG_SKIP : false;
const DIMS = 16;
/** Bound on the queue getting through a few dozen facts, its backoffs (1 s, doubling) included. */
const SETTLE_MS = 45_000;

useStoreCleanup();
const pgStores: MemoryStore[] = [];
const meanings: Embeddings[] = [];
after(async () => {
  for (const m of meanings.splice(0)) await m.close();
  for (const s of pgStores.splice(0)) await s.close();
  if (ON_PG && PG_SKIP === false) await dropSchemas();
});

async function freshStore(): Promise<MemoryStore> {
  if (!ON_PG) return (await openTempStore()).store;
  const schema = await freshSchema();
  const store = await openPostgresStore({ connection: { options: `-c search_path=${schema}` }, daemonVersion: DAEMON_VERSION, logger: silentLogger });
  pgStores.push(store);
  return store;
}

/** What a scripted provider was asked. */
interface Call {
  texts: string[];
  purpose: string;
  signal: AbortSignal | undefined;
}

/** A provider in this process: `answer` decides each call (throw to fail it); vectors are hash noise of the text. */
function provider(answer: (call: Call) => void | Promise<void> = () => {}): Embedder & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    kind: 'ollama',
    model: 'scripted',
    space: 'ollama:scripted',
    maxBatch: 64,
    calls,
    async embed(texts, purpose, signal) {
      const call = { texts: [...texts], purpose, signal };
      calls.push(call);
      await answer(call);
      return texts.map((t) => Float32Array.from(hashVector(t, DIMS)));
    },
    close: async () => {},
  };
}

function meaning(store: MemoryStore | VectorStore, embedder: Embedder): Embeddings {
  const vectors = 'vectors' in store ? store.vectors() : store;
  const m = new Embeddings({ embedder, store: vectors, logger: silentLogger });
  meanings.push(m);
  return m;
}

async function addFacts(store: MemoryStore, agentId: string, contents: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of contents) ids.push((await store.addFact({ agentId, content })).factId);
  return ids;
}

/** The agent's current facts that have no vector of the provider's space in the store. */
async function unembedded(store: MemoryStore, agentId: string): Promise<string[]> {
  return store.vectors().loadVectors('ollama:scripted', agentId, () => {});
}

const numbered = (what: string, n: number) => Array.from({ length: n }, (_, i) => `${what} number ${i + 1}`);

describeUnless(SKIP, 'the embedding queue', () => {
  it("one agent's batch that always fails does not stop another agent's facts", async () => {
    const store = await freshStore();
    // Every call holding the poisoned text fails as a server error would: retryable, every time.
    const embedder = provider(({ texts }) => {
      if (texts.some((t) => t.includes('POISON'))) throw new EmbedderError('http://127.0.0.1:1 answered HTTP 500: boom', { retryable: true });
    });
    const poisoned = await addFacts(store, 'poisoned', [...numbered('a note', 19), 'a POISON note']);
    const m = meaning(store, embedder);
    m.start();
    await waitFor(async () => (await unembedded(store, 'poisoned')).length === 1, SETTLE_MS, "the poisoned agent's other facts embedded");
    // Another agent comes after the poisoned one, and is served all the same.
    await addFacts(store, 'healthy', numbered('a healthy note', 20));
    await waitFor(async () => (await unembedded(store, 'healthy')).length === 0, SETTLE_MS, "the other agent's facts embedded");
    assert.deepEqual(await unembedded(store, 'poisoned'), [poisoned[19]]);
    assert.ok(m.state().pending <= 1, `pending ${m.state().pending}: at most the poisoned fact`);
    assert.equal(m.state().stopped, undefined, 'a failure that waiting may mend does not stop the queue');
  });

  it('a batch too long for the provider is split until it passes', async () => {
    const store = await freshStore();
    // More than 8 texts take longer than the provider's bound, every time.
    const embedder = provider(({ texts }) => {
      if (texts.length > 8) throw new EmbedderError('http://127.0.0.1:1 did not answer within 60000 ms', { retryable: true });
    });
    await addFacts(store, 'long', numbered('a long note', 40));
    const m = meaning(store, embedder);
    m.start();
    await waitFor(() => m.state().pending === 0 && m.state().dimensions === DIMS, SETTLE_MS, 'every fact embedded in smaller batches');
    assert.deepEqual(await unembedded(store, 'long'), []);
    assert.equal(m.state().lastError, undefined, 'the failure is history once batches pass');
  });

  it('a provider that refuses every text stops the queue, says why, and asks nothing more until a rebuild', async () => {
    const store = await freshStore();
    let known = false;
    const embedder = provider(() => {
      if (!known) throw new EmbedderError('http://127.0.0.1:1 answered HTTP 404: model "scripted" not found, try pulling it first', { retryable: false });
    });
    await addFacts(store, 'refused', numbered('a note', 10));
    const m = meaning(store, embedder);
    m.start();
    await waitFor(() => m.state().stopped === true, SETTLE_MS, 'the queue stopped');
    const state = m.state();
    assert.match(state.lastError ?? '', /HTTP 404: model "scripted" not found/);
    assert.ok(state.lastErrorAt !== undefined && Math.abs(Date.parse(state.lastErrorAt) - Date.now()) < 60_000, 'dated');
    assert.equal(state.pending, 10);
    const calls = embedder.calls.length;
    // A queue that retried would ask again within its first backoff (1 s); a stopped one never does.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.equal(embedder.calls.length, calls, 'no call after the stop');
    // The model is pulled; a rebuild starts the queue again.
    known = true;
    assert.equal(await m.rebuild(), 10);
    await waitFor(() => m.state().pending === 0 && m.state().dimensions === DIMS, SETTLE_MS, 'embedded after the rebuild');
    assert.equal(m.state().stopped, undefined);
    assert.equal(m.state().lastError, undefined);
  });

  it('a text refused on its own is left to lexical search; the others are embedded', async () => {
    const store = await freshStore();
    const embedder = provider(({ texts }) => {
      if (texts.some((t) => t.includes('TOO LONG'))) throw new EmbedderError('http://127.0.0.1:1 answered HTTP 400: input is too long', { retryable: false });
    });
    const ids = await addFacts(store, 'refuses-one', [...numbered('a note', 9), 'a TOO LONG note']);
    const m = meaning(store, embedder);
    m.start();
    await waitFor(() => m.state().pending === 0 && m.state().dimensions === DIMS, SETTLE_MS, 'the queue done');
    assert.deepEqual(await unembedded(store, 'refuses-one'), [ids[9]]);
    assert.equal(m.state().stopped, undefined);
  });

  it("an agent whose load fails is loaded again later, its facts pending meanwhile", async () => {
    const store = await freshStore();
    await addFacts(store, 'steady', numbered('a steady note', 3));
    await addFacts(store, 'flaky', numbered('a flaky note', 7));
    const vectors = store.vectors();
    let failures = 2;
    // The store as it is, but for the flaky agent's first loads.
    const flaky = new Proxy(vectors, {
      get(target, name: keyof VectorStore) {
        if (name !== 'loadVectors') return (target[name] as (...args: unknown[]) => unknown).bind(target);
        return (space: string, agentId: string, accept: Parameters<VectorStore['loadVectors']>[2], signal?: AbortSignal) => {
          if (agentId === 'flaky' && failures-- > 0) return Promise.reject(new Error('could not read: the disk is tired'));
          return target.loadVectors(space, agentId, accept, signal);
        };
      },
    });
    const m = meaning(flaky, provider());
    m.start();
    await waitFor(() => /loading the vectors of agent flaky: could not read/.test(m.state().lastError ?? ''), SETTLE_MS, 'the failed load reported');
    assert.ok(m.state().pending >= 7, `the agent's facts are pending (${m.state().pending})`);
    await waitFor(async () => (await unembedded(store, 'flaky')).length === 0, SETTLE_MS, "the flaky agent's facts embedded once its load passed");
    await waitFor(() => m.state().pending === 0 && m.state().lastError === undefined, SETTLE_MS, 'nothing pending, no error');
    // Not taken for a new agent: its later facts are embedded too.
    await addFacts(store, 'flaky', ['one more flaky note']);
    await waitFor(async () => (await unembedded(store, 'flaky')).length === 0, SETTLE_MS, 'a later fact embedded');
  });

  it('the last error is dated and clears when a later call succeeds, a query or a batch', async () => {
    const store = await freshStore();
    let queriesFail = false;
    const embedder = provider(({ purpose }) => {
      if (queriesFail && purpose === 'query') throw new EmbedderError('http://127.0.0.1:1 answered HTTP 503: busy', { retryable: true });
    });
    await addFacts(store, 'clears', numbered('a note about tea', 5));
    const m = meaning(store, embedder);
    m.start();
    await waitFor(() => m.state().pending === 0 && m.state().dimensions === DIMS, SETTLE_MS, 'embedded');
    const lexical = (n: number) => store.searchFacts({ agentId: 'clears', query: 'tea', limit: n });
    queriesFail = true;
    await m.search('clears', 'tea', 3, lexical);
    assert.match(m.state().lastError ?? '', /^search: .*HTTP 503: busy/);
    assert.ok(m.state().lastErrorAt !== undefined);
    // Nothing is queued: only a query can clear it, once searches ask again (10 s after a failure).
    queriesFail = false;
    await waitFor(
      async () => {
        await m.search('clears', `tea ${Date.now()}`, 3, lexical);
        return m.state().lastError === undefined;
      },
      SETTLE_MS,
      'a query that succeeds clears the error',
    );
    assert.equal(m.state().lastErrorAt, undefined);
  });

  it('close cancels the call in flight', async () => {
    const store = await freshStore();
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    // Hangs until its signal says stop, as a provider that never answers does until its call is cancelled.
    const embedder = provider(({ signal }) => {
      started();
      return new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(new EmbedderError('cancelled', { retryable: true }))));
    });
    await addFacts(store, 'hung', numbered('a note', 3));
    const m = meaning(store, embedder);
    m.start();
    await withTimeout(inFlight, SETTLE_MS, 'the call to start');
    await withTimeout(m.close(), 10_000, 'close to end the hung call');
    assert.equal(embedder.calls.at(-1)?.signal?.aborted, true, 'the call was cancelled');
  });
});
