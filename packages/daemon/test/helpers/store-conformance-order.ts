import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExportRecord, type Fact, timeBoundMs } from '@memoryd/protocol';
import type { MemoryStore } from '@memoryd/daemon';
import { tagKeys } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';
import { randomFilter } from './random-filter.js';

/*
 * `memory.list` newest first (ADR 0039) for every backend (part of
 * store-conformance.ts): descending ids, `after` continuing below the
 * cursor, current facts only, filters as oldest first.
 */

/** What the suite needs of a backend (store-conformance.ts's ConformanceBackend). */
interface Backend {
  open(): Promise<MemoryStore>;
}

interface ListParams {
  agentId: string;
  order?: 'oldest' | 'newest';
  after?: string;
  tags?: string[];
  since?: string;
  until?: string;
}

/** Every fact a list gives from `p.after` on, following `next`, `limit` a page. */
async function listAll(store: MemoryStore, p: ListParams, limit: number): Promise<Fact[]> {
  const out: Fact[] = [];
  let after = p.after;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.listFacts({ ...p, limit, ...(after === undefined ? {} : { after }) });
    out.push(...page.facts);
    if (page.next === undefined) return out;
    assert.equal(page.facts.length, limit, 'a page with a next is full');
    after = page.next;
  }
  assert.fail('memory.list never ended');
}

const ids = (facts: readonly Fact[]) => facts.map((f) => f.id);
const descending = (list: readonly string[]) => [...list].sort().reverse();

/** Whether a fact passes a filter, worked out plainly: every tag in normal form, createdAt in [since, until). */
function passes(f: Fact, p: { tags?: string[]; since?: string; until?: string }): boolean {
  const keys = tagKeys(f.tags);
  const at = Date.parse(f.createdAt);
  return (
    tagKeys(p.tags).every((k) => keys.includes(k)) &&
    (p.since === undefined || at >= timeBoundMs(p.since)!) &&
    (p.until === undefined || at < timeBoundMs(p.until)!)
  );
}

/** An imported current fact with id number `n`, written `day` days after 2026-01-01. */
function fact(agentId: string, n: number, day: number, tags: string[]): ExportRecord {
  const id = `01J${String(n).padStart(23, '0')}`;
  const createdAt = new Date(Date.parse('2026-01-01T00:00:00.000Z') + day * 86_400_000).toISOString();
  return { type: 'fact', agentId, id, content: `imported fact ${n}`, createdAt, ...(tags.length === 0 ? {} : { tags }) };
}

export function listOrderConformance(backend: Backend): void {
  describe('memory.list newest first (ADR 0039)', () => {
    it('lists every current fact once, newest first, page by page, after updates and deletes', async () => {
      const store = await backend.open();
      const added: string[] = [];
      for (let i = 0; i < 23; i++) added.push((await store.addFact({ agentId: 'newest', content: `newest fact ${i}` })).factId);
      const text = await store.reflect({ agentId: 'newest', action: 'update', factId: added[3]!, content: 'newest fact three, corrected' });
      const retag = await store.reflect({ agentId: 'newest', action: 'update', factId: added[20]!, tags: ['moved'] });
      await store.reflect({ agentId: 'newest', action: 'delete', factId: added[0]! });
      await store.reflect({ agentId: 'newest', action: 'delete', factId: added[22]! });
      const current = [...added.filter((_, i) => ![0, 3, 20, 22].includes(i)), text.supersededBy!, retag.supersededBy!];
      for (const limit of [1, 4, 10, 22, 23, 100]) {
        assert.deepEqual(ids(await listAll(store, { agentId: 'newest', order: 'newest' }, limit)), descending(current), `limit ${limit}`);
      }
      assert.deepEqual(ids(await listAll(store, { agentId: 'newest', order: 'oldest' }, 7)), [...current].sort(), "'oldest' is the default's order");
      const [top] = (await store.listFacts({ agentId: 'newest', order: 'newest', limit: 1 })).facts;
      assert.deepEqual(top, (await store.listFacts({ agentId: 'newest', limit: 100 })).facts.find((f) => f.id === retag.supersededBy), 'the same fact as oldest first lists it');
      assert.equal('next' in (await store.listFacts({ agentId: 'newest', order: 'newest', limit: 21 })), false, 'no next when a page ends at the oldest fact');
      assert.deepEqual(await store.listFacts({ agentId: 'nobody-here', order: 'newest' }), { facts: [] });
    });

    it('continues below `after`, whether the cursor is current, gone or never was', async () => {
      const store = await backend.open();
      const added: string[] = [];
      for (let i = 0; i < 12; i++) added.push((await store.addFact({ agentId: 'below', content: `below fact ${i}` })).factId);
      await store.reflect({ agentId: 'below', action: 'delete', factId: added[7]! });
      const current = added.filter((_, i) => i !== 7);
      const below = (cursor: string) => descending(current.filter((id) => id < cursor));
      for (const cursor of [added[9]!, added[7]!, added[11]!, added[1]!, added[0]!, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000']) {
        for (const limit of [1, 3, 100]) {
          assert.deepEqual(ids(await listAll(store, { agentId: 'below', order: 'newest', after: cursor }, limit)), below(cursor), `after ${cursor} limit ${limit}`);
        }
      }
      const page = await store.listFacts({ agentId: 'below', order: 'newest', after: added[9]!, limit: 3 });
      assert.deepEqual(page, { facts: page.facts, next: added[5] }, 'next is the last id of the page');
      assert.deepEqual(ids(page.facts), [added[8], added[6], added[5]]);
    });

    for (const shuffled of [false, true]) {
      it(`combines with tags, since and until, facts imported ${shuffled ? 'in any order' : 'in id order'}`, async () => {
        const store = await backend.open();
        const rand = random(shuffled ? 71 : 70);
        const TAGS = ['home', 'Home', 'work', 'travel plans', 'Travel  Plans', 'rare'];
        const pick = <T>(items: readonly T[]) => items[Math.floor(items.length * rand() ** 2)]!;
        const records = Array.from({ length: 400 }, (_, i) =>
          fact('mixed', (i + 1) * 1000 + Math.floor(rand() * 1000), rand() * 60, Array.from({ length: Math.floor(rand() * 3) }, () => pick(TAGS))),
        );
        // Shuffled, the index's ordinals do not follow ids: the list reads the facts instead (store/level/facts.ts).
        if (shuffled) records.sort(() => rand() - 0.5);
        assert.deepEqual((await store.importRecords({ records })).rejected, []);
        const listed = await listAll(store, { agentId: 'mixed' }, 100);
        for (const f of listed) {
          const r = rand();
          if (r < 0.1) await store.reflect({ agentId: 'mixed', action: 'delete', factId: f.id });
          else if (r < 0.15) await store.reflect({ agentId: 'mixed', action: 'update', factId: f.id, tags: ['home'] });
        }
        const facts = await listAll(store, { agentId: 'mixed' }, 100);
        for (let q = 0; q < 40; q++) {
          const p = randomFilter(rand, pick, TAGS);
          const limit = [1, 3, 10, 50][Math.floor(rand() * 4)]!;
          const expected = descending(ids(facts.filter((f) => passes(f, p))));
          const got = await listAll(store, { agentId: 'mixed', order: 'newest', ...p }, limit);
          assert.deepEqual(ids(got), expected, `${JSON.stringify(p)} limit ${limit}`);
          const cursor = expected[Math.floor(expected.length / 2)];
          if (cursor !== undefined) {
            const rest = await listAll(store, { agentId: 'mixed', order: 'newest', after: cursor, ...p }, limit);
            assert.deepEqual(ids(rest), expected.filter((id) => id < cursor), `after ${cursor} ${JSON.stringify(p)}`);
          }
        }
      });
    }
  });
}
