import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExportRecord, timeBoundMs } from '@memoryd/protocol';
import { DaemonErrorCodes, type MemoryStore } from '@memoryd/daemon';
import { type IndexFilter, analyzeQuery, docTerms, tagKeys } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';
import { randomFilter } from './random-filter.js';
import { ReferenceIndex } from './reference-index.js';
import { exportAll, rejectsWith } from './store.js';

/*
 * The contract of issue 40 for every backend (part of
 * store-conformance.ts): filters on list and search, tags changed by an
 * update, memory.history and memory.tags.
 */

/** What the suite needs of a backend (store-conformance.ts's ConformanceBackend). */
interface Backend {
  open(): Promise<MemoryStore>;
}

/** An imported current fact of agent `agentId`, written at `day` days after 2026-01-01. */
function fact(agentId: string, n: number, content: string, day: number, tags?: string[]): ExportRecord {
  const id = `01J${String(n).padStart(23, '0')}`;
  const createdAt = new Date(Date.parse('2026-01-01T00:00:00.000Z') + day * 86_400_000).toISOString();
  return { type: 'fact', agentId, id, content, createdAt, ...(tags === undefined ? {} : { tags }) };
}

/** Every current fact passing a filter, page by page (`limit` a page). */
async function listFiltered(store: MemoryStore, p: { agentId: string; tags?: string[]; since?: string; until?: string }, limit: number): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.listFacts({ ...p, limit, ...(after === undefined ? {} : { after }) });
    out.push(...page.facts.map((f) => f.content));
    if (page.next === undefined) return out;
    after = page.next;
  }
  assert.fail('memory.list never ended');
}

export function historyConformance(backend: Backend): void {
  describe('filters, tags and history (issue 40)', () => {
    it('lists and searches only the facts that pass, tags compared in normal form, times half-open', async () => {
      const store = await backend.open();
      const records = [
        fact('flt', 1, 'tea with lemon in the morning', 0, ['Preference', 'food']),
        fact('flt', 2, 'green tea after lunch', 5, ['preference']),
        fact('flt', 3, 'tea meeting on friday', 10, ['work']),
        fact('flt', 4, 'coffee is fine too', 15, [' PREFERENCE  ', 'Food']),
        fact('flt', 5, 'tea tasting trip to Kyoto', 20),
      ];
      assert.equal((await store.importRecords({ records })).imported, 5);
      for (const limit of [1, 2, 10]) {
        assert.deepEqual(await listFiltered(store, { agentId: 'flt', tags: ['preference'] }, limit), [
          'tea with lemon in the morning',
          'green tea after lunch',
          'coffee is fine too',
        ]);
        assert.deepEqual(await listFiltered(store, { agentId: 'flt', tags: ['preference', 'FOOD'] }, limit), ['tea with lemon in the morning', 'coffee is fine too']);
        assert.deepEqual(await listFiltered(store, { agentId: 'flt', since: '2026-01-06T00:00:00Z', until: '2026-01-16T00:00:00.001Z' }, limit), [
          'green tea after lunch',
          'tea meeting on friday',
          'coffee is fine too',
        ]);
      }
      // since is inclusive and until exclusive, to the millisecond (a finer fraction rounds up); offsets count.
      assert.deepEqual(await listFiltered(store, { agentId: 'flt', since: '2026-01-11T00:00:00.001Z', until: '2026-01-16T00:00:00.0001Z' }, 10), ['coffee is fine too']);
      assert.deepEqual(await listFiltered(store, { agentId: 'flt', since: '2026-01-11T01:00:00+01:00', until: '2026-01-16T00:00:00Z' }, 10), ['tea meeting on friday']);
      assert.deepEqual(await listFiltered(store, { agentId: 'flt', tags: ['nobody'] }, 10), []);
      const search = async (p: object) => (await store.searchFacts({ agentId: 'flt', query: 'tea', ...p })).facts.map((f) => f.content).sort();
      assert.deepEqual(await search({ tags: ['preference'] }), ['green tea after lunch', 'tea with lemon in the morning']);
      assert.deepEqual(await search({ since: '2026-01-10T00:00:00Z' }), ['tea meeting on friday', 'tea tasting trip to Kyoto']);
      assert.deepEqual(await search({ tags: ['work'], until: '2026-01-10T00:00:00Z' }), []);
      assert.deepEqual(await search({ limit: 1, tags: ['work'] }), ['tea meeting on friday']);
      // A filtered search scores as an unfiltered one: the same score for the same fact.
      const all = await store.searchFacts({ agentId: 'flt', query: 'tea' });
      const some = await store.searchFacts({ agentId: 'flt', query: 'tea', tags: ['work'] });
      assert.equal(some.facts[0]!.score, all.facts.find((f) => f.id === some.facts[0]!.id)!.score);
      await rejectsWith(store.listFacts({ agentId: 'flt', since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }), DaemonErrorCodes.InvalidParams);
      await rejectsWith(store.searchFacts({ agentId: 'flt', query: 'tea', since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }), DaemonErrorCodes.InvalidParams);
    });

    it('ranks a filtered search as filtering every fact, then ranking by brute force, on random data', async () => {
      const store = await backend.open();
      const rand = random(40);
      const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
      const tags = ['alpha', 'Alpha', 'beta', 'gamma ray', 'Gamma  Ray', 'delta', 'rare'];
      const pick = <T>(items: readonly T[]) => items[Math.floor(items.length * rand() ** 2)]!;
      const oracle = new ReferenceIndex();
      const records: ExportRecord[] = [];
      for (let i = 0; i < 800; i++) {
        const content = Array.from({ length: 2 + Math.floor(rand() * 8) }, () => pick(words)).join(' ');
        const t = Array.from({ length: Math.floor(rand() * 3) }, () => pick(tags));
        // Ids and times in no common order, as imports bring them.
        const r = fact('rnd', Math.floor(rand() * 1e12) * 1000 + i, content, rand() * 60, t.length > 0 ? t : undefined);
        records.push(r);
      }
      for (let at = 0; at < records.length; at += 400) assert.deepEqual((await store.importRecords({ records: records.slice(at, at + 400) })).rejected, []);
      for (const r of records) if (r.type === 'fact') oracle.add(r.id, docTerms(r));
      for (let q = 0; q < 150; q++) {
        const query = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(words)).join(' ');
        const p = randomFilter(rand, pick, tags);
        const limit = [1, 5, 10, 50][Math.floor(rand() * 4)]!;
        const filter: IndexFilter = {
          ...(p.tags === undefined ? {} : { tags: tagKeys(p.tags) }),
          ...(p.since === undefined ? {} : { since: timeBoundMs(p.since)! }),
          ...(p.until === undefined ? {} : { until: timeBoundMs(p.until)! }),
        };
        const got = (await store.searchFacts({ agentId: 'rnd', query, limit, ...p })).facts.map((f) => ({ id: f.id, score: f.score }));
        assert.deepEqual(got, oracle.search(analyzeQuery(query), limit, filter), `${query} ${JSON.stringify(p)} limit ${limit}`);
      }
    });

    it('counts the tags of current facts, normalised, most used first', async () => {
      const store = await backend.open();
      await store.importRecords({ records: [fact('tg', 1, 'one', 0, ['Work', 'b']), fact('tg', 2, 'two', 1, ['work ']), fact('tg', 3, 'three', 2, ['a', 'b'])] });
      assert.deepEqual((await store.tags({ agentId: 'tg' })).tags, [
        { tag: 'b', count: 2 },
        { tag: 'work', count: 2 },
        { tag: 'a', count: 1 },
      ]);
      const [third] = (await store.listFacts({ agentId: 'tg', tags: ['a'] })).facts;
      await store.reflect({ agentId: 'tg', action: 'delete', factId: third!.id });
      assert.deepEqual((await store.tags({ agentId: 'tg' })).tags, [
        { tag: 'work', count: 2 },
        { tag: 'b', count: 1 },
      ]);
      assert.deepEqual((await store.tags({ agentId: 'tg-nobody' })).tags, []);
    });

    it('changes tags alone, text and tags, or removes them, each a new version', async () => {
      const store = await backend.open();
      const v1 = await store.addFact({ agentId: 'retag', content: 'likes green tea', tags: ['food'] });
      const v2 = await store.reflect({ agentId: 'retag', action: 'update', factId: v1.factId, tags: ['Preference', 'food'] });
      assert.notEqual(v2.supersededBy, v1.factId);
      assert.deepEqual((await store.listFacts({ agentId: 'retag' })).facts.map((f) => [f.id, f.content, f.tags]), [[v2.supersededBy, 'likes green tea', ['Preference', 'food']]]);
      // Its text is still its own: adding it again is a duplicate of the new version.
      assert.deepEqual((await store.addFact({ agentId: 'retag', content: 'Likes green tea' })).factId, v2.supersededBy);
      const v3 = await store.reflect({ agentId: 'retag', action: 'update', factId: v2.supersededBy!, content: 'likes black tea', tags: ['preference'] });
      const v4 = await store.reflect({ agentId: 'retag', action: 'update', factId: v3.supersededBy!, tags: [] });
      const [now] = (await store.listFacts({ agentId: 'retag' })).facts;
      assert.deepEqual([now!.id, now!.content, now!.tags], [v4.supersededBy, 'likes black tea', undefined]);
      assert.deepEqual((await store.listFacts({ agentId: 'retag', tags: ['preference'] })).facts, []);
      await rejectsWith(store.reflect({ agentId: 'retag', action: 'update', factId: v4.supersededBy! }), DaemonErrorCodes.InvalidParams);
    });

    it('gives every version of a chain, oldest first, from any of its ids', async () => {
      const store = await backend.open();
      const a = await store.addFact({ agentId: 'hist', content: 'the office is on floor 3', tags: ['office'] });
      const b = await store.reflect({ agentId: 'hist', action: 'update', factId: a.factId, content: 'the office is on floor 4' });
      const c = await store.reflect({ agentId: 'hist', action: 'update', factId: b.supersededBy!, tags: ['office', 'moved'] });
      const d = await store.reflect({ agentId: 'hist', action: 'delete', factId: c.supersededBy! });
      const ids = [a.factId, b.supersededBy!, c.supersededBy!];
      const expected = await store.history({ agentId: 'hist', factId: a.factId });
      assert.deepEqual(expected.versions.map((v) => v.id), ids);
      assert.deepEqual(
        expected.versions.map((v) => [v.content, v.tags, v.supersededBy, v.deletedAt === undefined ? undefined : 'deleted']),
        [
          ['the office is on floor 3', ['office'], ids[1], undefined],
          ['the office is on floor 4', ['office'], ids[2], undefined],
          ['the office is on floor 4', ['office', 'moved'], undefined, 'deleted'],
        ],
      );
      assert.equal(d.factId, ids[2]);
      for (const v of expected.versions.slice(0, 2)) assert.ok(v.updatedAt !== undefined && v.updatedAt >= v.createdAt);
      for (const id of ids) assert.deepEqual(await store.history({ agentId: 'hist', factId: id }), expected, `from ${id}`);
      await rejectsWith(store.history({ agentId: 'hist', factId: '01J00000000000000000000000' }), DaemonErrorCodes.NotFound);
      await rejectsWith(store.history({ agentId: 'hist-other', factId: a.factId }), DaemonErrorCodes.NotFound);

      // An update onto a text another current fact holds: both chains are one history now.
      const x = await store.addFact({ agentId: 'hist', content: 'lunch is at noon', tags: ['x'] });
      const y = await store.addFact({ agentId: 'hist', content: 'lunch is at one', tags: ['y'] });
      const merged = await store.reflect({ agentId: 'hist', action: 'update', factId: y.factId, content: 'Lunch is at noon', tags: ['z'] });
      assert.equal(merged.supersededBy, x.factId);
      const h = await store.history({ agentId: 'hist', factId: y.factId });
      assert.deepEqual(h.versions.map((v) => [v.id, v.supersededBy]), [[x.factId, undefined], [y.factId, x.factId]]);
      assert.deepEqual(await store.history({ agentId: 'hist', factId: x.factId }), h);
      // The fact it landed on keeps its own tags.
      assert.deepEqual((await store.listFacts({ agentId: 'hist' })).facts.map((f) => [f.id, f.tags]), [[x.factId, ['x']]]);

      // An export and import keep every history.
      const to = await backend.open();
      await to.importRecords({ records: await exportAll(store, { agentId: 'hist' }) });
      for (const id of [...ids, x.factId, y.factId]) assert.deepEqual(await to.history({ agentId: 'hist', factId: id }), await store.history({ agentId: 'hist', factId: id }));
    });
  });
}
