// store: every backend. run-tests.mjs runs this file again with MEMORYD_TEST_STORE=postgres (ADR 0027).
// The vectors of meaning search (store/vector-store.ts), on the store the
// run names: LevelDB by default, PostgreSQL under MEMORYD_TEST_STORE=postgres
// (each store a schema of its own; skipped, saying so, without a server).
// One vector per current fact, of one space; none for a fact retired or
// deleted, whatever the order; listeners hear of every change to the
// current facts. On PostgreSQL also: two daemons on one database read each
// other's vectors and hear of each other's changes, and a vector written
// while its fact is retired is made to meet the retirement, both ways round
// (locks held in a session of the test's own until pg_stat_activity shows
// the store's statement waiting for them).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DAEMON_VERSION, type Embedder, Embeddings, type Logger, type MemoryStore, openPostgresStore, silentLogger } from '@memoryd/daemon';
import { makeUlid, waitFor } from '@memoryd/test-support';
import { describeUnless, dropSchemas, freshSchema, PG_SKIP, pgAdmin } from './helpers/postgres.js';
import { openTempStore, useStoreCleanup } from './helpers/store.js';

type VectorStore = ReturnType<MemoryStore['vectors']>;
type FactChange = Parameters<Parameters<VectorStore['onFactChanges']>[0]>[0][number];
type StoredVector = Parameters<VectorStore['putVectors']>[2][number];

const ON_PG = process.env['MEMORYD_TEST_STORE'] === 'postgres';
const SKIP = ON_PG ? PG_SKIP : false;
const SPACE = 'test-model:4';
/** A well-formed id no fact has. */
const NO_SUCH_FACT = makeUlid(Date.UTC(2020, 0, 1), 99);

const pgStores: MemoryStore[] = [];
/** The last answer of a search polled by `eventually`. */
let found: string[] = [];

/** A PostgreSQL store on `schema`, closed at the end. */
async function openOn(schema: string, logger: Logger = silentLogger, timeouts?: PgTimeouts): Promise<MemoryStore> {
  const store = await openPostgresStore({ connection: { options: `-c search_path=${schema}` }, daemonVersion: DAEMON_VERSION, logger, ...(timeouts && { timeouts }) });
  pgStores.push(store);
  return store;
}

type PgTimeouts = NonNullable<Parameters<typeof openPostgresStore>[0]['timeouts']>;
/** Waits on a lock the test holds end when the test lets them, not at the default 5 s. */
const PATIENT: PgTimeouts = { connectMs: 10_000, statementMs: 60_000, lockMs: 60_000 };

/**
 * The server processes waiting for a lock that `holder` (a server process)
 * holds, whose statement begins with `sql`.
 */
async function waitingFor(holder: number, sql: string): Promise<number[]> {
  return pgAdmin(async (c) => {
    const { rows } = await c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid)) AND starts_with(query, $2)`,
      [holder, sql],
    );
    return rows.map((r) => r.pid);
  });
}

/** A promise that says whether it has settled, its rejection kept for whoever awaits it (none goes unhandled meanwhile). */
function later<T>(p: Promise<T>): Promise<T> & { settled(): boolean } {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  return Object.assign(p, { settled: () => settled });
}

/**
 * Until `op`'s statement, beginning with `sql`, waits for a lock `holder`
 * holds (bounded only against a hang): its server process. Fails at once
 * if `op` ends first, without waiting.
 */
async function waitsFor(op: { settled(): boolean }, holder: number, sql: string, what: string): Promise<number> {
  let pids: number[] = [];
  await waitFor(async () => op.settled() || (pids = await waitingFor(holder, sql)).length > 0, 20_000, what);
  assert.equal(pids.length, 1, `${what}: ${op.settled() ? 'it ended without waiting' : `${pids.length} statements wait`}`);
  return pids[0]!;
}

/** A new, empty store of the run's backend. */
async function freshStore(): Promise<MemoryStore> {
  return ON_PG ? openOn(await freshSchema()) : (await openTempStore()).store;
}

/** A vector of 4 components, made from `seed`. */
function vec(seed: number): Float32Array {
  return Float32Array.from([seed, -seed / 3, Math.fround(0.1) * seed, 1e-40 * seed]);
}

/**
 * Vectors as search reads them: each component as an int8 of the vector's
 * own scale (embed/vector-index.ts). A store may keep no more than that
 * (LevelDB keeps int8s, PostgreSQL float32s), and must keep no less.
 */
function plain(v: { id: string; vector: Float32Array }[]): Array<{ id: string; vector: number[] }> {
  const q = (vector: Float32Array): number[] => {
    const max = Math.max(...[...vector].map(Math.abs));
    return [...vector].map((x) => (max === 0 ? 0 : Math.round((x / max) * 127) || 0));
  };
  return v.map(({ id, vector }) => ({ id, vector: q(vector) })).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** An agent's vectors and missing facts, its pages gathered. */
async function load(vectors: VectorStore, space: string, agentId: string): Promise<{ vectors: StoredVector[]; missing: string[] }> {
  const got: StoredVector[] = [];
  const missing = await vectors.loadVectors(space, agentId, (page) => got.push(...page));
  return { vectors: got, missing };
}

/** Waits, bounded, until `done()` holds. */
async function eventually(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects the changes a store's listeners hear of. */
function listen(vectors: VectorStore): FactChange[] {
  const heard: FactChange[] = [];
  vectors.onFactChanges((changes) => heard.push(...changes));
  return heard;
}

function has(heard: readonly FactChange[], agentId: string, id: string, sign: 1 | -1): boolean {
  return heard.some((c) => c.agentId === agentId && c.id === id && c.sign === sign);
}

/** The sign of the last change heard of `id`. */
function last(heard: readonly FactChange[], id: string): number | undefined {
  for (let i = heard.length - 1; i >= 0; i--) if (heard[i]!.id === id) return heard[i]!.sign;
  return undefined;
}

describeUnless(SKIP, `vectors of meaning search: ${ON_PG ? 'postgres' : 'level'}`, () => {
  if (!ON_PG) useStoreCleanup();
  after(async () => {
    if (!ON_PG) return;
    for (const store of pgStores.splice(0)) await store.close();
    await dropSchemas();
  });

  it('stores vectors to the precision search reads, one space at a time, and says which current facts lack one', async () => {
    const store = await freshStore();
    const v = store.vectors();
    const agentId = 'round-trip';
    const a = (await store.addFact({ agentId, content: 'alpha fact' })).factId;
    const b = (await store.addFact({ agentId, content: 'beta fact' })).factId;
    const c = (await store.addFact({ agentId, content: 'gamma fact' })).factId;
    assert.deepEqual(plain((await load(v, SPACE, agentId)).vectors), []);
    assert.deepEqual((await load(v, SPACE, agentId)).missing.sort(), [a, b, c].sort());

    const odd = Float32Array.from([-0, 3.4028234663852886e38, 1.401298464324817e-45, Math.fround(Math.PI)]);
    assert.deepEqual((await v.putVectors(SPACE, agentId, [{ id: a, vector: odd }, { id: b, vector: vec(2) }])).sort(), [a, b].sort());
    const loaded = await load(v, SPACE, agentId);
    assert.deepEqual(plain(loaded.vectors), plain([{ id: a, vector: odd }, { id: b, vector: vec(2) }]));
    assert.deepEqual(loaded.missing, [c]);
    assert.deepEqual(plain(await v.readVectors(SPACE, agentId, [b, c, a])), plain([{ id: a, vector: odd }, { id: b, vector: vec(2) }]));

    // A vector of another space is missing in this one, and a new one replaces it.
    const other = 'other-model:4';
    assert.deepEqual((await load(v, other, agentId)).missing.sort(), [a, b, c].sort());
    assert.deepEqual(await v.readVectors(other, agentId, [a, b]), []);
    assert.deepEqual(await v.putVectors(other, agentId, [{ id: a, vector: vec(7) }]), [a]);
    assert.deepEqual(plain((await load(v, other, agentId)).vectors), plain([{ id: a, vector: vec(7) }]));
    const again = await load(v, SPACE, agentId);
    assert.deepEqual(plain(again.vectors), plain([{ id: b, vector: vec(2) }]));
    assert.deepEqual(again.missing.sort(), [a, c].sort());
    assert.deepEqual(await v.agentsWithFacts(), [{ agentId, facts: 3 }]);
  });

  it('stores no vector of a fact retired or deleted, and deletes one with its fact', async () => {
    const store = await freshStore();
    const v = store.vectors();
    const agentId = 'retired';
    const [a, b, c, d] = await Promise.all(['one', 'two', 'three', 'four'].map(async (t) => (await store.addFact({ agentId, content: `fact ${t}` })).factId));
    const { supersededBy: a2 } = await store.reflect({ agentId, action: 'update', factId: a!, content: 'fact one, revised' });
    await store.reflect({ agentId, action: 'delete', factId: b! });
    const put = await v.putVectors(SPACE, agentId, [a, b, c, a2, NO_SUCH_FACT].map((id, i) => ({ id: id!, vector: vec(i + 1) })));
    assert.deepEqual(put.sort(), [c!, a2!].sort(), 'only the current facts');
    assert.deepEqual(plain(await v.readVectors(SPACE, agentId, [a!, b!, NO_SUCH_FACT])), []);

    // Vectors stored, then their facts retired: the vectors go with them.
    assert.deepEqual((await v.putVectors(SPACE, agentId, [{ id: d!, vector: vec(9) }])), [d]);
    const { supersededBy: c2 } = await store.reflect({ agentId, action: 'update', factId: c!, content: 'fact three, revised' });
    await store.reflect({ agentId, action: 'delete', factId: d! });
    assert.deepEqual(await v.readVectors(SPACE, agentId, [c!, d!]), [], 'no vector left of a retired fact');
    const loaded = await load(v, SPACE, agentId);
    assert.deepEqual(plain(loaded.vectors), plain([{ id: a2!, vector: vec(4) }]));
    assert.deepEqual(loaded.missing, [c2]);

    // Texts and facts of the current ones only, in the order asked.
    const ids = [c!, c2!, a!, a2!, b!, NO_SUCH_FACT];
    assert.deepEqual(await v.textsToEmbed(agentId, ids), [
      { id: c2, text: 'fact three, revised' },
      { id: a2, text: 'fact one, revised' },
    ]);
    const listed = (await store.listFacts({ agentId })).facts;
    assert.deepEqual(await v.readFacts(agentId, ids), [c2, a2].map((id) => listed.find((f) => f.id === id)));
    assert.deepEqual(await v.readFacts(agentId, []), []);
  });

  it('keeps no vector of a fact deleted while its vector is written, whichever is asked for first', async () => {
    const store = await freshStore();
    const v = store.vectors();
    const agentId = 'at-once';
    for (const first of ['write', 'delete'] as const) {
      const { factId } = await store.addFact({ agentId, content: `deleted at once, ${first} asked first` });
      const ended: string[] = [];
      const write = () => later(v.putVectors(SPACE, agentId, [{ id: factId, vector: vec(3) }]).finally(() => ended.push('write')));
      const remove = () => later(store.reflect({ agentId, action: 'delete', factId }).finally(() => ended.push('delete')));
      // Both asked for in one turn of the event loop, neither awaited before the other is asked.
      let put: Promise<string[]>;
      let deleted: Promise<unknown>;
      if (first === 'write') {
        put = write();
        deleted = remove();
      } else {
        deleted = remove();
        put = write();
      }
      const stored = await put;
      await deleted;
      assert.deepEqual(await v.readVectors(SPACE, agentId, [factId]), [], `${first} first: no vector outlives its fact`);
      assert.ok(!(await load(v, SPACE, agentId)).vectors.some((x) => x.id === factId), `${first} first: none loaded`);
      if (!ON_PG) {
        // LevelDB: the agent's lock takes them in the order asked, each whole. (On PostgreSQL two
        // connections race; the tests below hold locks to make each interleaving happen.)
        assert.deepEqual(ended, first === 'write' ? ['write', 'delete'] : ['delete', 'write'], 'one after the other, in the order asked');
        assert.deepEqual(stored, first === 'write' ? [factId] : [], first === 'write' ? 'stored, then deleted with its fact' : 'nothing stored of a deleted fact');
      }
    }
  });

  it('loads thousands of vectors a page at a time, with missing facts and left-over vectors between them', async () => {
    const store = await freshStore();
    const v = store.vectors();
    const agentId = 'pages';
    const ids: string[] = [];
    for (let i = 0; i < 2_500; i++) ids.push((await store.addFact({ agentId, content: `fact number ${i} of many` })).factId);
    const embedded = ids.filter((_, i) => i % 7 !== 3);
    for (let i = 0; i < embedded.length; i += 500) {
      await v.putVectors(SPACE, agentId, embedded.slice(i, i + 500).map((id, j) => ({ id, vector: vec(i + j + 1) })));
    }
    // Retired facts take their vectors with them; the load must step over their gaps.
    const retired = embedded.filter((_, i) => i % 11 === 5);
    for (const id of retired) await store.reflect({ agentId, action: 'delete', factId: id });
    const pages: number[] = [];
    const got: StoredVector[] = [];
    const missing = await v.loadVectors(SPACE, agentId, (page) => {
      pages.push(page.length);
      got.push(...page);
    });
    const gone = new Set(retired);
    assert.deepEqual(got.map((x) => x.id).sort(), embedded.filter((id) => !gone.has(id)).sort());
    assert.deepEqual(missing.sort(), ids.filter((_, i) => i % 7 === 3).sort());
    assert.ok(ON_PG || pages.length >= 2, `more than one page (${pages.join(', ')})`);
    const byId = new Map(got.map((x) => [x.id, x.vector]));
    const at = embedded.indexOf(got[0]!.id);
    assert.deepEqual(plain([{ id: got[0]!.id, vector: byId.get(got[0]!.id)! }]), plain([{ id: got[0]!.id, vector: vec(at + 1) }]));
  });

  it('drops every vector, of every agent and space', async () => {
    const store = await freshStore();
    const v = store.vectors();
    const a = (await store.addFact({ agentId: 'drop-1', content: 'first agent fact' })).factId;
    const b = (await store.addFact({ agentId: 'drop-2', content: 'second agent fact', tags: ['t'] })).factId;
    await v.putVectors(SPACE, 'drop-1', [{ id: a, vector: vec(1) }]);
    await v.putVectors('other-model:4', 'drop-2', [{ id: b, vector: vec(2) }]);
    const agents = (await v.agentsWithFacts()).sort((x, y) => (x.agentId < y.agentId ? -1 : 1));
    assert.deepEqual(agents, [
      { agentId: 'drop-1', facts: 1 },
      { agentId: 'drop-2', facts: 1 },
    ]);
    await v.dropVectors();
    assert.deepEqual(await load(v, SPACE, 'drop-1'), { vectors: [], missing: [a] });
    assert.deepEqual(await load(v, 'other-model:4', 'drop-2'), { vectors: [], missing: [b] });
    // The facts themselves stay.
    assert.deepEqual((await v.readFacts('drop-2', [b])).map((f) => f.tags), [['t']]);
  });

  it('tells listeners of every change to the current facts, by the time it is acknowledged', async () => {
    const store = await freshStore();
    const heard = listen(store.vectors());
    const agentId = 'listened';
    const { factId: a } = await store.addFact({ agentId, content: 'a fact to update' });
    assert.ok(has(heard, agentId, a, 1), 'add: +1');
    const { supersededBy: a2 } = await store.reflect({ agentId, action: 'update', factId: a, content: 'the updated fact' });
    assert.ok(has(heard, agentId, a, -1) && has(heard, agentId, a2!, 1), 'update: -1 old, +1 new');
    await store.reflect({ agentId, action: 'delete', factId: a2! });
    assert.ok(has(heard, agentId, a2!, -1), 'delete: -1');
    const id = makeUlid(Date.UTC(2024, 0, 1), 1);
    await store.importRecords({ records: [{ type: 'fact', agentId, id, content: 'an imported fact', createdAt: '2024-01-01T00:00:00.000Z' }] });
    assert.ok(has(heard, agentId, id, 1), 'import: +1');
    assert.ok(!has(heard, agentId, makeUlid(Date.UTC(2024, 0, 1), 2), 1));
    // Heard twice maybe (PostgreSQL's notifications), but last as they are now.
    await eventually('the last change of each fact is its state', () => last(heard, a) === -1 && last(heard, a2!) === -1 && last(heard, id) === 1);
  });
});

describe('vectors of meaning search: two daemons on one PostgreSQL database', { skip: ON_PG ? PG_SKIP : 'runs under MEMORYD_TEST_STORE=postgres' }, () => {
  after(async () => {
    for (const store of pgStores.splice(0)) await store.close();
    await dropSchemas();
  });

  it("reads the other's vectors and hears of the other's changes", async () => {
    const schema = await freshSchema();
    const [one, two] = [await openOn(schema), await openOn(schema)];
    // A search waits for the store to listen (pg-search-index.ts): from then on it hears of every change.
    await two.searchFacts({ agentId: 'elsewhere', query: 'anything' });
    const heard = listen(two.vectors());
    const agentId = 'shared';
    const { factId: a } = await one.addFact({ agentId, content: 'written by the first daemon' });
    await eventually('the second daemon hears of the add', () => has(heard, agentId, a, 1));
    assert.deepEqual(await one.vectors().putVectors(SPACE, agentId, [{ id: a, vector: vec(5) }]), [a]);
    assert.deepEqual(plain(await two.vectors().readVectors(SPACE, agentId, [a])), plain([{ id: a, vector: vec(5) }]));
    assert.deepEqual(plain((await load(two.vectors(), SPACE, agentId)).vectors), plain([{ id: a, vector: vec(5) }]));
    const { supersededBy: a2 } = await one.reflect({ agentId, action: 'update', factId: a, content: 'revised by the first daemon' });
    await eventually('the second daemon hears of the update', () => last(heard, a) === -1 && last(heard, a2!) === 1);
    await one.reflect({ agentId, action: 'delete', factId: a2! });
    await eventually('the second daemon hears of the delete', () => last(heard, a2!) === -1);
    assert.deepEqual(await two.vectors().readVectors(SPACE, agentId, [a, a2!]), []);
  });

  it('deletes a vector with its fact in the database itself, whoever retires or deletes it', async () => {
    const schema = await freshSchema();
    const store = await openOn(schema);
    const v = store.vectors();
    const agentId = 'by-hand';
    const [a, b] = await Promise.all(['first', 'second'].map(async (t) => (await store.addFact({ agentId, content: `${t} fact` })).factId));
    await v.putVectors(SPACE, agentId, [{ id: a!, vector: vec(1) }, { id: b!, vector: vec(2) }]);
    // By hand, as another program would (the tables' own triggers name them by the search_path).
    const byHand = (sql: string, values: unknown[]) =>
      pgAdmin(async (c) => {
        await c.query(`SET search_path = ${schema}`);
        await c.query(sql, values);
      });
    const stored = async () => (await pgAdmin((c) => c.query<{ fact_id: string }>(`SELECT fact_id FROM ${schema}.fact_vectors ORDER BY fact_id`))).rows.map((r) => r.fact_id);
    assert.deepEqual(await stored(), [a, b].sort());
    await byHand(`UPDATE facts SET deleted_at = '2024-01-01T00:00:00.000Z', dedup_key = NULL WHERE id = $1`, [a]);
    assert.deepEqual(await stored(), [b]);
    await byHand('DELETE FROM facts WHERE id = $1', [b]);
    assert.deepEqual(await stored(), []);
  });

  it('a vector written while its fact\'s retirement is uncommitted waits for it: none if it commits, stored if it rolls back', async () => {
    const schema = await freshSchema();
    const store = await openOn(schema, silentLogger, PATIENT);
    const agentId = 'racing';
    const vectorsOf = async (id: string) => (await pgAdmin((c) => c.query(`SELECT fact_id FROM ${schema}.fact_vectors WHERE fact_id = $1`, [id]))).rowCount;
    for (const end of ['COMMIT', 'ROLLBACK'] as const) {
      const { factId } = await store.addFact({ agentId, content: `retired meanwhile, then ${end}` });
      const stored = await pgAdmin(async (c) => {
        await c.query(`SET search_path = ${schema}`);
        const holder = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await c.query('BEGIN');
        await c.query(`UPDATE facts SET deleted_at = '2024-01-01T00:00:00.000Z', dedup_key = NULL WHERE id = $1`, [factId]);
        const put = later(store.vectors().putVectors(SPACE, agentId, [{ id: factId, vector: vec(1) }]));
        // The race, made to happen: the write is seen waiting for the retirement's row lock before it ends.
        await waitsFor(put, holder, 'INSERT INTO fact_vectors', `the write to wait for the retirement (${end})`);
        await c.query(end);
        return put;
      });
      if (end === 'COMMIT') {
        assert.deepEqual(stored, [], 'the write found the fact retired once it could look');
        assert.equal(await vectorsOf(factId), 0);
      } else {
        assert.deepEqual(stored, [factId], 'the retirement rolled back: the fact is current, its vector stored');
        assert.equal(await vectorsOf(factId), 1);
      }
    }
  });

  it('a retirement that comes while a vector is being written waits for the write, and takes the vector with it', async () => {
    const schema = await freshSchema();
    const store = await openOn(schema, silentLogger, PATIENT);
    const agentId = 'racing';
    const { factId } = await store.addFact({ agentId, content: 'retired while its vector is written' });
    const stored = await pgAdmin(async (c) => {
      await c.query(`SET search_path = ${schema}`);
      // This session's own rows skip the foreign key's check, so that the row below holds no lock on the fact.
      await c.query('SET session_replication_role = replica');
      const holder = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await c.query('BEGIN');
      // A vector row of the fact, not committed: the write checks the fact (and locks it FOR SHARE),
      // then waits at its insert for this row's fate.
      await c.query(`INSERT INTO fact_vectors (agent_id, fact_id, space, vec) VALUES ($1, $2, 'held:1', '\\x00000000'::bytea)`, [agentId, factId]);
      const put = later(store.vectors().putVectors(SPACE, agentId, [{ id: factId, vector: vec(2) }]));
      const writer = await waitsFor(put, holder, 'INSERT INTO fact_vectors', 'the write to wait between its check and its insert');
      // The retirement comes now, between the write's check of the fact and its insert.
      const retiring = later(store.reflect({ agentId, action: 'delete', factId }));
      await waitsFor(retiring, writer, 'SELECT', 'the retirement to wait for the write that found the fact current');
      await c.query('ROLLBACK');
      assert.deepEqual(await retiring, { action: 'delete', factId });
      return put;
    });
    assert.deepEqual(stored, [factId], 'the write stored its vector, the fact current when it looked');
    const rows = await pgAdmin((c) => c.query(`SELECT count(*)::int AS n FROM ${schema}.fact_vectors`));
    assert.deepEqual(rows.rows, [{ n: 0 }], 'the retirement, after the write, took the vector with it');
  });

  it('asks for a resync once listening is back after it was lost, and not before', async () => {
    const schema = await freshSchema();
    const store = await openOn(schema);
    await store.searchFacts({ agentId: 'resync', query: 'anything' });
    let resyncs = 0;
    store.vectors().onResync(() => resyncs++);
    assert.equal(resyncs, 0, 'the first listen is no resync');
    const killed = await pgAdmin((c) =>
      c.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN "memoryd_' || md5($1) || '"'`, [schema]),
    );
    assert.deepEqual(killed.rows, [{ ok: true }]);
    await eventually('a resync asked for once listening is back', () => resyncs === 1, 15_000);
  });

  it('meaning search reloads after a resync: another daemon\'s fact, embedded while this one was deaf, is found', async () => {
    const schema = await freshSchema();
    const a = await openOn(schema);
    const b = await openOn(schema);
    // Texts about tea and the word "beverage" share a direction; everything else is orthogonal to it.
    const embedder: Embedder = {
      kind: 'ollama', model: 'two-way', space: 'ollama:two-way', maxBatch: 64,
      embed: async (texts) => texts.map((t) => Float32Array.from(/tea|beverage/.test(t) ? [1, 0, 0, 0] : [0, 1, 0, 0])),
      close: async () => {},
    };
    const meaning = new Embeddings({ embedder, store: b.vectors(), logger: silentLogger });
    try {
      await b.addFact({ agentId: 'resync', content: 'the deploy runs on fridays' });
      meaning.start();
      await eventually('b embedded its fact', () => meaning.state().pending === 0 && meaning.state().dimensions === 4);
      const killed = await pgAdmin((c) =>
        c.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN "memoryd_' || md5($1) || '"'`, [schema]),
      );
      assert.equal(killed.rows.length, 2, 'both stores listen');
      // Daemon a adds and embeds while b hears nothing (a listens again too; b's index misses it until its resync).
      const { factId } = await a.addFact({ agentId: 'resync', content: 'Maya prefers green tea' });
      await a.vectors().putVectors(embedder.space, 'resync', [{ id: factId, vector: Float32Array.from([1, 0, 0, 0]) }]);
      const lexical = (n: number) => b.searchFacts({ agentId: 'resync', query: 'favourite beverage', limit: n });
      await eventually(
        'b finds it by meaning',
        () => {
          void meaning.search('resync', 'favourite beverage', 5, lexical).then((facts) => (found = facts.map((f) => f.id)));
          return found.includes(factId);
        },
        20_000,
      );
    } finally {
      await meaning.close();
    }
  });

  it("reports this daemon's own writes while it cannot hear notifications", async () => {
    const schema = await freshSchema();
    const warned: string[] = [];
    const store = await openOn(schema, { ...silentLogger, warn: (msg) => warned.push(msg) });
    await store.searchFacts({ agentId: 'deaf', query: 'anything' });
    assert.deepEqual(warned, []);
    const heard = listen(store.vectors());
    // Its listening connection goes: notifications are not heard until it is made again (a second later).
    const killed = await pgAdmin((c) =>
      c.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN "memoryd_' || md5($1) || '"'`, [schema]),
    );
    assert.deepEqual(killed.rows, [{ ok: true }]);
    await eventually('the store sees its listening connection end', () => warned.length > 0);
    const { factId } = await store.addFact({ agentId: 'deaf', content: 'added while deaf' });
    assert.ok(has(heard, 'deaf', factId, 1));
  });
});
