import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExportRecord } from '@memoryd/protocol';
import { DaemonErrorCodes, type MemoryStore } from '@memoryd/daemon';
import { exportAll, exportRest, rejectsWith } from './store.js';
import { historyConformance } from './store-conformance-history.js';
import { listOrderConformance } from './store-conformance-order.js';

/*
 * The store's contract, for every backend (ADR 0027), as abstract-level's
 * suite is for every Level store: only MemoryStore's methods, no look at
 * how a backend keeps its records. A backend passes it unchanged before
 * it is offered to users; the LevelDB store runs it in every `npm test`
 * (store-conformance-level.test.ts).
 */

/** What the suite needs of a backend. */
export interface ConformanceBackend {
  /** For test names: `level`, `postgres`. */
  name: string;
  /** A new, empty store of its own (nothing another test wrote). */
  open(): Promise<MemoryStore>;
  /** The same store closed and opened again, as a daemon restart does. */
  reopen(store: MemoryStore): Promise<MemoryStore>;
  /** Closes every store it opened and removes what they left. */
  cleanup(): Promise<void>;
}

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every current fact of an agent, page by page, `limit` a page. */
async function listAll(store: MemoryStore, agentId: string, limit = 100): Promise<{ id: string; content: string; tags?: string[] }[]> {
  const out: { id: string; content: string; tags?: string[] }[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.listFacts({ agentId, limit, ...(after === undefined ? {} : { after }) });
    out.push(...page.facts);
    if (page.next === undefined) return out;
    after = page.next;
  }
  assert.fail('memory.list never ended');
}

/** Runs the whole contract against `backend`. */
export function storeConformance(backend: ConformanceBackend): void {
  describe(`store conformance: ${backend.name}`, () => {
    after(() => backend.cleanup());

    describe('facts', () => {
      let store: MemoryStore;
      before(async () => {
        store = await backend.open();
      });

      it('adds a fact with a fresh ULID and its creation time, and lists it', async () => {
        const added = await store.addFact({ agentId: 'facts', content: 'The deploy window is Thursday', tags: ['ops'] });
        assert.match(added.factId, ULID);
        assert.match(added.createdAt, TIME);
        assert.equal(added.duplicate, undefined);
        const { facts } = await store.listFacts({ agentId: 'facts' });
        assert.deepEqual(facts, [{ id: added.factId, content: 'The deploy window is Thursday', tags: ['ops'], createdAt: added.createdAt }]);
      });

      it('stores nothing new for the same text after NFC, case folding, trimming and collapsing', async () => {
        const first = await store.addFact({ agentId: 'dedupe', content: 'Café  opens at NINE' });
        for (const again of ['café opens at nine', '  CAFÉ opens\tat nine  ', 'Cafe\u0301 opens at nine']) {
          const added = await store.addFact({ agentId: 'dedupe', content: again });
          assert.deepEqual(added, { factId: first.factId, createdAt: first.createdAt, duplicate: true }, again);
        }
        assert.equal((await listAll(store, 'dedupe')).length, 1);
        // Another agent's copy is its own fact.
        const other = await store.addFact({ agentId: 'dedupe-other', content: 'Café opens at nine' });
        assert.notEqual(other.factId, first.factId);
        assert.equal(other.duplicate, undefined);
      });

      it('stores one fact when the same text is added many times at once', async () => {
        const results = await Promise.all(Array.from({ length: 24 }, () => store.addFact({ agentId: 'race', content: 'one copy only' })));
        const ids = new Set(results.map((r) => r.factId));
        assert.equal(ids.size, 1, 'every caller gets the same id');
        assert.equal(results.filter((r) => r.duplicate !== true).length, 1, 'exactly one call stored it');
        assert.deepEqual((await listAll(store, 'race')).map((f) => f.id), [...ids]);
      });

      it('lists current facts oldest first, every one once, page by page', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 23; i++) ids.push((await store.addFact({ agentId: 'pages', content: `paged fact number ${i}` })).factId);
        for (const limit of [1, 5, 10, 23, 100]) {
          assert.deepEqual((await listAll(store, 'pages', limit)).map((f) => f.id), ids, `limit ${limit}`);
        }
        const last = await store.listFacts({ agentId: 'pages', limit: 23 });
        assert.equal(last.next, undefined, 'no next when nothing follows');
        assert.deepEqual(await store.listFacts({ agentId: 'nobody-here' }), { facts: [] });
      });

      it('finds facts by any word, best first, and only the agent’s own', async () => {
        const a = await store.addFact({ agentId: 'search', content: 'the postgres replica lags behind the primary' });
        await store.addFact({ agentId: 'search', content: 'lunch is at noon on fridays' });
        await store.addFact({ agentId: 'search-other', content: 'postgres replica postgres replica' });
        const { facts } = await store.searchFacts({ agentId: 'search', query: 'replica lags' });
        assert.equal(facts[0]?.id, a.factId);
        assert.ok(facts.every((f) => f.content.includes('replica') || f.content.includes('lags')), 'only matching facts');
        assert.ok(facts.every((f) => typeof f.score === 'number' && f.score > 0), 'each with a score');
        assert.deepEqual(await store.searchFacts({ agentId: 'search', query: 'zebra' }), { facts: [] });
        assert.deepEqual(await store.searchFacts({ agentId: 'nobody-here', query: 'replica' }), { facts: [] });
      });

      it('says what a match of the whole query scores: a fact of average length holding each query word once', async () => {
        const whole = await store.addFact({ agentId: 'full-match', content: 'alpha beta gamma delta' });
        await store.addFact({ agentId: 'full-match', content: 'epsilon zeta eta theta' });
        await store.addFact({ agentId: 'full-match', content: 'alpha iota kappa lambda' });
        const r = await store.searchFacts({ agentId: 'full-match', query: 'alpha beta' });
        assert.equal(r.facts[0]?.id, whole.factId);
        assert.ok(r.fullMatch !== undefined && Math.abs(r.facts[0]!.score! - r.fullMatch) < 1e-9, `score ${r.facts[0]?.score}, full match ${r.fullMatch}`);
        // A word no fact holds counts as the rarest: the best match then holds less than the whole query.
        const partial = await store.searchFacts({ agentId: 'full-match', query: 'alpha beta omega' });
        assert.ok(partial.fullMatch! > r.fullMatch, 'omega adds to what a whole match would score');
        assert.equal(partial.facts[0]!.score, r.facts[0]!.score);
      });

      it('updates by superseding, and deletes, along a chain', async () => {
        const v1 = await store.addFact({ agentId: 'chain', content: 'the office is on floor 3' });
        const up1 = await store.reflect({ agentId: 'chain', action: 'update', factId: v1.factId, content: 'the office is on floor 4' });
        assert.equal(up1.action, 'update');
        assert.equal(up1.factId, v1.factId);
        assert.match(up1.supersededBy!, ULID);
        const up2 = await store.reflect({ agentId: 'chain', action: 'update', factId: up1.supersededBy!, content: 'the office is on floor 5' });
        assert.deepEqual((await listAll(store, 'chain')).map((f) => [f.id, f.content]), [[up2.supersededBy, 'the office is on floor 5']]);
        // Superseded versions are history: not current, so not found.
        await rejectsWith(store.reflect({ agentId: 'chain', action: 'update', factId: v1.factId, content: 'again' }), DaemonErrorCodes.NotFound);
        await rejectsWith(store.reflect({ agentId: 'chain', action: 'delete', factId: up1.supersededBy! }), DaemonErrorCodes.NotFound);
        // The old text is free again: adding it is a new fact.
        assert.equal((await store.addFact({ agentId: 'chain', content: 'The office is on floor 3' })).duplicate, undefined);
        const del = await store.reflect({ agentId: 'chain', action: 'delete', factId: up2.supersededBy! });
        assert.deepEqual(del, { action: 'delete', factId: up2.supersededBy });
        await rejectsWith(store.reflect({ agentId: 'chain', action: 'delete', factId: up2.supersededBy! }), DaemonErrorCodes.NotFound);
        const found = (await store.searchFacts({ agentId: 'chain', query: 'floor 5' })).facts.map((f) => f.id);
        assert.ok(!found.includes(up2.supersededBy!) && !found.includes(v1.factId), 'deleted and superseded versions are not found');
        // Another agent cannot touch it.
        const mine = await store.addFact({ agentId: 'chain', content: 'mine alone' });
        await rejectsWith(store.reflect({ agentId: 'chain-other', action: 'delete', factId: mine.factId }), DaemonErrorCodes.NotFound);
      });
    });

    describe('context: the words said just before (ADR 0033)', () => {
      let store: MemoryStore;
      before(async () => {
        store = await backend.open();
      });

      it('finds a fact by its context\'s words, below a fact that holds them, and never returns it', async () => {
        const agentId = 'ctx';
        const question = 'Jonas: Did you go to the concert in the end?';
        await store.addFact({ agentId, content: question });
        const answer = await store.addFact({ agentId, content: 'Maria: Yes, last Friday with my kids.', context: question });
        const plain = await store.addFact({ agentId, content: 'Jonas: The weather was lovely on Friday.' });
        const holder = await store.addFact({ agentId, content: 'Maria: the concert hall is being renovated' });
        const hits = (await store.searchFacts({ agentId, query: 'concert' })).facts;
        const ids = hits.map((f) => f.id);
        assert.ok(ids.includes(answer.factId), 'the answer is found by its question\'s word');
        assert.ok(ids.indexOf(holder.factId) < ids.indexOf(answer.factId), 'a fact holding the word ranks above one whose context does');
        assert.ok(!ids.includes(plain.factId), 'a fact added without context is found by its own words only');
        for (const f of [...hits, ...(await listAll(store, agentId))]) assert.equal('context' in f, false, 'the context is never returned');
        // A duplicate's context is not stored: the fact already held keeps its own.
        const again = await store.addFact({ agentId, content: 'jonas: the weather was LOVELY on friday.', context: 'a story about volcanoes' });
        assert.equal(again.duplicate, true);
        assert.deepEqual((await store.searchFacts({ agentId, query: 'volcanoes' })).facts, []);
      });

      it('keeps a fact\'s context through an update, an export and an import', async () => {
        const agentId = 'ctx-kept';
        const asked = 'Tom: How was the holiday in Iceland?';
        await store.addFact({ agentId, content: asked });
        const told = await store.addFact({ agentId, content: 'Aisha: We saw the northern lights twice!', context: asked });
        const { supersededBy } = await store.reflect({ agentId, action: 'update', factId: told.factId, content: 'Aisha: We saw the northern lights three times!' });
        const found = async (s: MemoryStore) => (await s.searchFacts({ agentId, query: 'Iceland holiday' })).facts.map((f) => f.id);
        assert.ok((await found(store)).includes(supersededBy!), 'the new version keeps the context of the old');
        const records = (await exportAll(store, { agentId })) as Extract<ExportRecord, { type: 'fact' }>[];
        assert.equal(records.find((r) => r.id === supersededBy)?.context, asked);
        assert.equal(records.find((r) => r.id === told.factId)?.context, asked);
        assert.equal(records[0]?.context, undefined, 'a fact added without context has none');
        const to = await backend.open();
        await to.importRecords({ records });
        assert.deepEqual(await exportAll(to, { agentId }), records);
        assert.deepEqual(await found(to), await found(store), 'an imported store searches alike');
        // And across a restart (LevelDB: from the index image; PostgreSQL: loaded again).
        const reopened = await backend.reopen(to);
        assert.deepEqual(await found(reopened), await found(store));
      });
    });

    describe('checkpoints', () => {
      let store: MemoryStore;
      before(async () => {
        store = await backend.open();
      });

      it('saves, resumes the latest or one by id, and lists oldest first', async () => {
        const saved = [];
        for (let i = 0; i < 4; i++) saved.push(await store.saveCheckpoint({ agentId: 'ck', state: { step: i, nested: { list: [i, 'x'] } }, messageCount: i * 10 }));
        const latest = await store.resumeCheckpoint({ agentId: 'ck' });
        assert.deepEqual(latest, { checkpoint: { id: saved[3]!.checkpointId, createdAt: saved[3]!.createdAt, state: { step: 3, nested: { list: [3, 'x'] } }, messageCount: 30 } });
        const byId = await store.resumeCheckpoint({ agentId: 'ck', checkpointId: saved[1]!.checkpointId });
        assert.deepEqual('checkpoint' in byId ? byId.checkpoint.state : byId, { step: 1, nested: { list: [1, 'x'] } });
        const { checkpoints } = await store.listCheckpoints({ agentId: 'ck' });
        assert.deepEqual(checkpoints.map((c) => c.id), saved.map((s) => s.checkpointId));
        assert.ok(checkpoints.every((c) => !('state' in c)), 'the list carries no state');
        const first = await store.listCheckpoints({ agentId: 'ck', limit: 3 });
        assert.equal(first.checkpoints.length, 3);
        const rest = await store.listCheckpoints({ agentId: 'ck', limit: 3, after: first.next! });
        assert.deepEqual(rest.checkpoints.map((c) => c.id), [saved[3]!.checkpointId]);
        assert.equal(rest.next, undefined);
      });

      it('says a missing checkpoint is absent: typed when asked, else not found', async () => {
        assert.deepEqual(await store.resumeCheckpoint({ agentId: 'ck-none', reportNotFound: true }), { notFound: true });
        await rejectsWith(store.resumeCheckpoint({ agentId: 'ck-none' }), DaemonErrorCodes.NotFound);
        const mine = await store.saveCheckpoint({ agentId: 'ck-mine', state: {} });
        await rejectsWith(store.resumeCheckpoint({ agentId: 'ck-theirs', checkpointId: mine.checkpointId }), DaemonErrorCodes.NotFound);
      });
    });

    describe('agents and counts', () => {
      it('lists agents with current facts or checkpoints, and counts them', async () => {
        const store = await backend.open();
        const f = await store.addFact({ agentId: 'ag-a', content: 'one' });
        await store.addFact({ agentId: 'ag-a', content: 'two' });
        await store.saveCheckpoint({ agentId: 'ag-b', state: { s: 1 } });
        const gone = await store.addFact({ agentId: 'ag-c', content: 'soon deleted' });
        await store.reflect({ agentId: 'ag-c', action: 'delete', factId: gone.factId });
        await store.reflect({ agentId: 'ag-a', action: 'update', factId: f.factId, content: 'one, revised' });
        const { agents } = await store.listAgents({});
        assert.deepEqual(
          [...agents].sort((x, y) => x.agentId.localeCompare(y.agentId)),
          [
            { agentId: 'ag-a', facts: 2, checkpoints: 0 },
            { agentId: 'ag-b', facts: 0, checkpoints: 1 },
          ],
        );
        assert.deepEqual(await store.counts(), { facts: 2, checkpoints: 1, agents: 2 });
        assert.equal(store.health(), 'ok');
      });
    });

    describe('export and import', () => {
      it('exports every version and checkpoint, ordered, and imports them back the same', async () => {
        const from = await backend.open();
        const a1 = await from.addFact({ agentId: 'ex-a', content: 'first', tags: ['t'] });
        await from.addFact({ agentId: 'ex-a', content: 'second' });
        await from.reflect({ agentId: 'ex-a', action: 'update', factId: a1.factId, content: 'first, revised' });
        const b1 = await from.addFact({ agentId: 'ex-b', content: 'of b' });
        await from.reflect({ agentId: 'ex-b', action: 'delete', factId: b1.factId });
        await from.saveCheckpoint({ agentId: 'ex-a', state: { k: 'v' }, messageCount: 2 });
        const records = await exportAll(from, { limit: 2 });
        assert.equal(records.filter((r) => r.type === 'fact').length, 4, 'every version');
        const order = records.map((r) => [r.agentId, r.type === 'fact' ? 0 : 1, r.id].join(' '));
        assert.deepEqual(order, [...order].sort(), 'by agent, facts before checkpoints, by id');
        assert.deepEqual(await exportAll(from, { agentId: 'ex-b' }), records.filter((r) => r.agentId === 'ex-b'));

        const to = await backend.open();
        assert.deepEqual(await to.importRecords({ records }), { imported: records.length, skipped: 0, rejected: [] });
        assert.deepEqual(await exportAll(to), records, 'the same records, history included');
        assert.deepEqual(await listAll(to, 'ex-a'), await listAll(from, 'ex-a'));
        assert.deepEqual(await to.counts(), await from.counts());
        // Twice adds nothing.
        assert.deepEqual(await to.importRecords({ records }), { imported: 0, skipped: records.length, rejected: [] });
        // What was imported is searchable.
        assert.equal((await to.searchFacts({ agentId: 'ex-a', query: 'revised' })).facts.length, 1);
      });

      it('rejects an invalid record by index, with a reason, and imports the rest', async () => {
        const store = await backend.open();
        const good = (id: string, content: string): ExportRecord => ({ type: 'fact', agentId: 'imp', id, content, createdAt: '2026-01-01T00:00:00.000Z' });
        const records = [
          good('01J0000000000000000000000A', 'kept one'),
          { ...good('01J0000000000000000000000B', ''), content: '' },
          good('01J0000000000000000000000C', 'kept two'),
        ] as ExportRecord[];
        const result = await store.importRecords({ records });
        assert.equal(result.imported, 2);
        assert.equal(result.skipped, 0);
        assert.deepEqual(result.rejected.map((r) => [r.index, r.code]), [[1, -32602]]);
        assert.ok(result.rejected[0]!.reason.length > 0);
        assert.deepEqual((await listAll(store, 'imp')).map((f) => f.content), ['kept one', 'kept two']);
      });

      it('exports a snapshot: writes after the first page are not in it', async () => {
        const store = await backend.open();
        const before = [];
        for (let i = 0; i < 6; i++) before.push((await store.addFact({ agentId: 'snap', content: `before ${i}` })).factId);
        const first = await store.exportPage({ agentId: 'snap', limit: 2 });
        await store.addFact({ agentId: 'snap', content: 'after the snapshot' });
        await store.reflect({ agentId: 'snap', action: 'delete', factId: before[5]! });
        await store.reflect({ agentId: 'snap', action: 'update', factId: before[4]!, content: 'changed after' });
        const records = await exportRest(store, first);
        assert.deepEqual(
          records.map((r) => [r.id, r.type === 'fact' ? [r.content, r.supersededBy, r.deletedAt] : null]),
          before.map((id, i) => [id, [`before ${i}`, undefined, undefined]]),
        );
      });
    });

    historyConformance(backend);
    listOrderConformance(backend);

    describe('isolation and restarts', () => {
      it('keeps agents apart, case-sensitively', async () => {
        const store = await backend.open();
        await store.addFact({ agentId: 'Iso', content: 'upper case agent' });
        await store.addFact({ agentId: 'iso', content: 'lower case agent' });
        assert.deepEqual((await listAll(store, 'Iso')).map((f) => f.content), ['upper case agent']);
        assert.deepEqual((await store.searchFacts({ agentId: 'iso', query: 'agent' })).facts.map((f) => f.content), ['lower case agent']);
      });

      it('keeps every acknowledged write across a restart', async () => {
        let store = await backend.open();
        const fact = await store.addFact({ agentId: 'durable', content: 'survives a restart' });
        const ck = await store.saveCheckpoint({ agentId: 'durable', state: { at: 1 } });
        store = await backend.reopen(store);
        assert.deepEqual((await listAll(store, 'durable')).map((f) => f.id), [fact.factId]);
        assert.equal((await store.searchFacts({ agentId: 'durable', query: 'restart' })).facts[0]?.id, fact.factId);
        const resumed = await store.resumeCheckpoint({ agentId: 'durable' });
        assert.equal('checkpoint' in resumed ? resumed.checkpoint.id : undefined, ck.checkpointId);
        assert.equal((await store.addFact({ agentId: 'durable', content: 'SURVIVES a restart' })).duplicate, true);
      });
    });
  });
}
