// Meaning search on one PostgreSQL database shared by several daemons
// (docs/embeddings.md, "Several daemons on one database"): each fact is
// embedded once, whatever the number of daemons, because a daemon claims a
// fact's embedding before it asks its provider; a daemon killed while it
// holds claims loses them with its connection, and another embeds those
// facts; and when a daemon cannot read the rows of facts it was told of,
// its vectors are read again, so the fact it missed is still embedded and
// found. Skipped, saying so, without a server.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { DAEMON_VERSION, type Embedder, Embeddings, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { DaemonStatus, MemoryAdd, type ResultOf } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, type FakeEmbedder, startDaemon, startFakeEmbedder, tempDir, trackCloser, waitFor } from '@memoryd/test-support';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP, pgAdmin } from './helpers/postgres.js';
import { connect, type RpcClient } from './helpers/rpc.js';

/** Bound on the daemons embedding a few dozen facts between them, their rechecks of others' claims (1 s, doubling) included. */
const EMBED_WAIT_MS = 45_000;
const AGENT = 'shared';

const stores: MemoryStore[] = [];
const meanings: Embeddings[] = [];
after(async () => {
  for (const m of meanings.splice(0)) await m.close();
  for (const s of stores.splice(0)) await s.close();
  await cleanupAll();
  if (PG_SKIP === false) await dropSchemas();
});

type Embeddings_ = NonNullable<ResultOf<typeof DaemonStatus>['embeddings']>;

interface Member {
  d: DaemonHandle;
  c: RpcClient;
  provider: FakeEmbedder;
}

/** A daemon on `schema` with a fake provider of its own (so each one's texts are counted apart). */
async function member(schema: string, mode: 'ok' | 'hang' = 'ok'): Promise<Member> {
  const provider = await startFakeEmbedder({ vectors: 'hash', dimensions: 32, mode });
  trackCloser(() => provider.close());
  const dir = tempDir('embed-pg-');
  const d = await startDaemon({
    socket: join(dir, 'd.sock'),
    dataDir: join(dir, 'data'),
    args: ['--store', 'postgres', '--embedder', 'ollama', '--embed-url', provider.url, '--embed-model', 'fake'],
    env: { PGOPTIONS: `-c search_path=${schema}` },
  });
  const c = await connect(d.socket);
  trackCloser(() => c.close());
  return { d, c, provider };
}

async function embeddingsOf(c: RpcClient): Promise<Embeddings_> {
  const s = await c.ok(DaemonStatus, {});
  assert.ok(s.embeddings !== undefined);
  return s.embeddings;
}

/** Until `facts` vectors are stored in `schema` and every member has nothing pending and no error. */
async function allSettled(schema: string, members: Member[], facts: number): Promise<void> {
  await waitFor(
    async () => {
      for (const { c } of members) {
        const e = await embeddingsOf(c);
        if (e.pending !== 0 || e.dimensions === 0 || e.lastError !== undefined) return false;
      }
      const stored = await pgAdmin((a) => a.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.fact_vectors`));
      return Number(stored.rows[0]!.n) === facts;
    },
    EMBED_WAIT_MS,
    `${facts} facts embedded, nothing pending anywhere`,
  );
}

describeUnless(PG_SKIP, 'several daemons on one PostgreSQL database', () => {
  for (const n of [2, 3]) {
    it(`${n} daemons ask their providers once per fact`, async () => {
      const schema = await freshSchema();
      const members: Member[] = [];
      for (let i = 0; i < n; i++) members.push(await member(schema));
      // Facts come through every daemon, in turns; each hears of the others' at once.
      const FACTS = 30;
      for (let i = 0; i < FACTS; i++) await members[i % n]!.c.ok(MemoryAdd, { agentId: AGENT, content: `shared note number ${i + 1}, about ${i % 7} things` });
      await allSettled(schema, members, FACTS);
      const texts = members.map((m) => m.provider.texts);
      assert.equal(
        texts.reduce((a, b) => a + b, 0),
        FACTS,
        `texts embedded by each daemon's provider: ${texts.join(', ')} (one call per fact in all)`,
      );
    });
  }

  it('a daemon killed while it holds claims loses them; another embeds those facts, once', async () => {
    const schema = await freshSchema();
    // The first daemon's provider never answers: it claims the facts and waits.
    const first = await member(schema, 'hang');
    const FACTS = 12;
    for (let i = 0; i < FACTS; i++) await first.c.ok(MemoryAdd, { agentId: AGENT, content: `a note the first daemon claims, number ${i + 1}` });
    await waitFor(() => first.provider.requests > 0, EMBED_WAIT_MS, 'the first daemon asks its provider, holding its claim');
    const second = await member(schema);
    // The second one loads, finds every fact claimed, and looks again later: nothing embedded meanwhile.
    await waitFor(async () => (await embeddingsOf(second.c)).pending === FACTS, EMBED_WAIT_MS, 'the second daemon sees the facts pending');
    assert.equal(second.provider.texts, 0, 'claimed facts are not embedded twice');
    await first.d.kill();
    await allSettled(schema, [second], FACTS);
    assert.equal(second.provider.texts, FACTS, 'the second daemon embedded each fact once');
    assert.equal(first.provider.texts, 0, 'the first never had an answer');
  });

  it('a failed read of notified facts is followed by a resync: the fact missed is embedded and found', async (t) => {
    const schema = await freshSchema();
    const role = `memoryd_reader_${schema.slice(-12)}`;
    const open = (user?: string) =>
      openPostgresStore({
        connection: { options: `-c search_path=${schema}`, ...(user === undefined ? {} : { user }) },
        daemonVersion: DAEMON_VERSION,
        logger: silentLogger,
      }).then((s) => (stores.push(s), s));
    const writer = await open();
    await pgAdmin(async (a) => {
      await a.query(`CREATE ROLE ${role} LOGIN`);
      await a.query(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
      await a.query(`GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    });
    t.after(async () => {
      for (const s of stores.splice(0)) await s.close();
      await pgAdmin((a) => a.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`));
    });
    const reader = await open(role);
    // Texts about tea and the word "beverage" share a direction; everything else is orthogonal to it.
    const embedder: Embedder = {
      kind: 'ollama', model: 'two-way', space: 'ollama:two-way', maxBatch: 64,
      embed: async (texts) => texts.map((t) => Float32Array.from(/tea|beverage/.test(t) ? [1, 0, 0, 0] : [0, 1, 0, 0])),
      close: async () => {},
    };
    let resyncs = 0;
    reader.vectors().onResync(() => resyncs++);
    const meaning = new Embeddings({ embedder, store: reader.vectors(), logger: silentLogger });
    meanings.push(meaning);
    await writer.addFact({ agentId: AGENT, content: 'the deploy runs on fridays' });
    meaning.start();
    await waitFor(() => meaning.state().pending === 0 && meaning.state().dimensions === 4, EMBED_WAIT_MS, 'the reader embedded the first fact');
    // The reader may no longer read facts: it hears of the next one, and cannot read its row.
    await pgAdmin((a) => a.query(`REVOKE SELECT ON ${schema}.facts FROM ${role}`));
    const { factId } = await writer.addFact({ agentId: AGENT, content: 'Maya prefers green tea' });
    await waitFor(() => resyncs > 0, EMBED_WAIT_MS, 'a resync asked for after the failed read');
    await pgAdmin((a) => a.query(`GRANT SELECT ON ${schema}.facts TO ${role}`));
    const lexical = (limit: number) => reader.searchFacts({ agentId: AGENT, query: 'favourite beverage', limit });
    let found: string[] = [];
    await waitFor(
      async () => {
        found = (await meaning.search(AGENT, 'favourite beverage', 5, lexical)).map((f) => f.id);
        return found[0] === factId;
      },
      EMBED_WAIT_MS,
      'the missed fact found by meaning',
    );
  });
});
