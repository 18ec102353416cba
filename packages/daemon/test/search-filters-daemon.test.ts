// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// Filters through a real daemon (docs/protocol.md, "Filters"), on random
// facts and filters: without an embedder, a filtered search is what
// filtering every fact and ranking the rest by brute force gives
// (helpers/reference-index.ts), ids and scores; with one (a fake Ollama),
// every fact a fused search returns passes, it returns `limit` facts
// whenever that many pass, and a filter every fact passes changes nothing.
// A filtered list newest first gives every passing fact once, ids
// descending. Bad filters are refused naming the field; memory.history and
// memory.tags answer over the wire; the capabilities are announced.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AdminImport, DaemonHello, DaemonStatus, type ExportRecord, MemoryHistory, MemoryList, MemoryReflect, MemorySearch, MemoryTags, timeBoundMs } from '@memoryd/protocol';
import { type IndexFilter, analyzeQuery, docTerms, tagKeys } from '@memoryd/daemon/search';
import { cleanupAll, prng, startDaemon, startFakeEmbedder, tempDir, trackCloser, waitFor } from '@memoryd/test-support';
import { ReferenceIndex } from './helpers/reference-index.js';
import { connect, type RpcClient } from './helpers/rpc.js';

after(cleanupAll);

const AGENT = 'filters';
const WORDS = Array.from({ length: 50 }, (_, i) => `w${i}`);
const TAGS = ['home', 'Home', 'work', 'travel plans', 'Travel  Plans', 'health', 'rare'];
const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

interface Data {
  records: ExportRecord[];
  oracle: ReferenceIndex;
}

function randomData(seed: number, n: number): Data {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(items.length * rand() ** 2)]!;
  const records: ExportRecord[] = [];
  const oracle = new ReferenceIndex();
  for (let i = 0; i < n; i++) {
    const content = Array.from({ length: 2 + Math.floor(rand() * 8) }, () => pick(WORDS)).join(' ') + ` n${i}`;
    const tags = Array.from({ length: Math.floor(rand() * 3) }, () => pick(TAGS));
    const id = `01J${String(Math.floor(rand() * 1e12) * 1000 + i).padStart(23, '0')}`;
    const r: ExportRecord = { type: 'fact', agentId: AGENT, id, content, createdAt: new Date(T0 + Math.floor(rand() * 90 * DAY)).toISOString(), ...(tags.length > 0 ? { tags } : {}) };
    records.push(r);
    oracle.add(id, docTerms(r));
  }
  return { records, oracle };
}

function randomParams(rand: () => number): { query: string; limit: number; tags?: string[]; since?: string; until?: string } {
  const pick = <T>(items: readonly T[]) => items[Math.floor(items.length * rand() ** 2)]!;
  const p: { query: string; limit: number; tags?: string[]; since?: string; until?: string } = {
    query: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(WORDS)).join(' '),
    limit: [1, 5, 10, 40][Math.floor(rand() * 4)]!,
  };
  if (rand() < 0.6) p.tags = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(TAGS));
  const a = Math.floor(rand() * 90);
  // Offsets as users write them: the same instants, other zones.
  if (rand() < 0.5) p.since = new Date(T0 + a * DAY).toISOString().replace('Z', '+00:00');
  if (rand() < 0.5) p.until = new Date(T0 + (a + 1 + Math.floor(rand() * 40)) * DAY).toISOString();
  return p;
}

function filterOf(p: { tags?: string[]; since?: string; until?: string }): IndexFilter {
  return {
    ...(p.tags === undefined ? {} : { tags: tagKeys(p.tags) }),
    ...(p.since === undefined ? {} : { since: timeBoundMs(p.since)! }),
    ...(p.until === undefined ? {} : { until: timeBoundMs(p.until)! }),
  };
}

/** The ids of every fact a newest-first list gives, following `next`. */
async function listNewest(c: RpcClient, p: { agentId: string; limit: number; tags?: string[]; since?: string; until?: string }): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 2000; pages++) {
    const page = await c.ok(MemoryList, { ...p, order: 'newest', ...(after === undefined ? {} : { after }) });
    out.push(...page.facts.map((f) => f.id));
    if (page.next === undefined) return out;
    after = page.next;
  }
  assert.fail('memory.list never ended');
}

async function daemonWith(args: string[], data: Data): Promise<RpcClient> {
  const dir = tempDir('filters-');
  const d = await startDaemon({ socket: join(dir, 'd.sock'), dataDir: join(dir, 'data'), args });
  const c = await connect(d.socket);
  trackCloser(() => c.close());
  for (let at = 0; at < data.records.length; at += 1000) {
    const r = await c.ok(AdminImport, { records: data.records.slice(at, at + 1000) });
    assert.deepEqual(r.rejected, []);
  }
  return c;
}

describe('filters through the daemon', () => {
  it('ranks as filter-then-brute-force without an embedder, and refuses bad filters naming them', async () => {
    const data = randomData(5, 1500);
    const c = await daemonWith([], data);
    const hello = await c.ok(DaemonHello, {});
    assert.ok(hello.capabilities.includes('filters') && hello.capabilities.includes('history') && hello.capabilities.includes('listOrder'));
    const rand = prng(6);
    for (let q = 0; q < 200; q++) {
      const p = randomParams(rand);
      const got = (await c.ok(MemorySearch, { agentId: AGENT, ...p })).facts.map((f) => ({ id: f.id, score: f.score }));
      assert.deepEqual(got, data.oracle.search(analyzeQuery(p.query), p.limit, filterOf(p)), JSON.stringify(p));
    }
    // A filtered list newest first: every passing fact once, ids descending, page after page.
    const sorted = data.records.map((r) => r.id).sort();
    for (let q = 0; q < 30; q++) {
      const { query: _, limit: __, ...filters } = randomParams(rand);
      const limit = [7, 40, 100][q % 3]!;
      const expected = sorted.filter((id) => data.oracle.passes(id, filterOf(filters))).reverse();
      assert.deepEqual(await listNewest(c, { agentId: AGENT, limit, ...filters }), expected, JSON.stringify(filters));
    }
    for (const [params, field] of [
      [{ since: '2026-02-30T00:00:00Z' }, 'since'],
      [{ until: 'yesterday' }, 'until'],
      [{ since: '2026-01-01' }, 'since'],
      [{ tags: [] }, 'tags'],
      [{ tags: [' '] }, 'tags[0]'],
      [{ since: '2026-03-01T00:00:00Z', until: '2026-02-01T00:00:00Z' }, 'until'],
    ] as const) {
      const r = await c.call('memory.search', { agentId: AGENT, query: 'w1', ...params });
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
      assert.equal((r.error?.data as { field?: string } | undefined)?.field, field, JSON.stringify(params));
    }
    // History and tags over the wire.
    const first = data.records[0]!;
    const up = await c.ok(MemoryReflect, { agentId: AGENT, action: 'update', factId: first.id, tags: ['moved'] });
    const h = await c.ok(MemoryHistory, { agentId: AGENT, factId: up.supersededBy! });
    assert.deepEqual(h.versions.map((v) => v.id), [first.id, up.supersededBy]);
    const tags = (await c.ok(MemoryTags, { agentId: AGENT })).tags;
    assert.ok(tags.some((t) => t.tag === 'moved' && t.count === 1));
    assert.ok(tags.every((t, i) => i === 0 || tags[i - 1]!.count >= t.count));
    const missing = await c.call('memory.history', { agentId: AGENT, factId: '01J00000000000000000000000' });
    assert.equal(missing.error?.code, -32004);
  });

  it('with an embedder, returns only facts that pass, limit of them when that many pass', async () => {
    const server = await startFakeEmbedder({ vectors: 'hash', dimensions: 32 });
    trackCloser(() => server.close());
    const data = randomData(9, 600);
    const c = await daemonWith(['--embedder', 'ollama', '--embed-url', server.url, '--embed-model', 'fake'], data);
    await waitFor(
      async () => {
        const e = (await c.ok(DaemonStatus, {})).embeddings;
        return e !== undefined && e.pending === 0 && e.dimensions > 0;
      },
      60_000,
      'every fact embedded',
    );
    const byId = new Map(data.records.map((r) => [r.id, r]));
    const rand = prng(10);
    for (let q = 0; q < 120; q++) {
      const p = randomParams(rand);
      const filter = filterOf(p);
      const passing = data.records.filter((r) => data.oracle.passes(r.id, filter)).length;
      const got = (await c.ok(MemorySearch, { agentId: AGENT, ...p })).facts;
      for (const f of got) assert.ok(data.oracle.passes(f.id, filter), `${f.id} does not pass ${JSON.stringify(p)}`);
      assert.equal(got.length, Math.min(p.limit, passing), JSON.stringify(p));
      assert.ok(got.every((f) => byId.has(f.id)));
      const everything = await c.ok(MemorySearch, { agentId: AGENT, query: p.query, limit: p.limit, since: '2000-01-01T00:00:00Z' });
      assert.deepEqual(everything, await c.ok(MemorySearch, { agentId: AGENT, query: p.query, limit: p.limit }));
    }
  });
});
