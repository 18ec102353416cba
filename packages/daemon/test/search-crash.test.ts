// Issue 4: "the index stays consistent after a SIGKILL in the middle of a
// stream of adds, updates and deletes (every current fact is found by its
// own words; no removed fact is)". Four connections for two agents stream
// memory.add and memory.reflect update/delete, each text with a marker word
// no other text holds; the daemon (sync on, the default) is SIGKILLed right
// after the Nth acknowledgement while the other requests are in flight, and
// a new daemon on the same data dir must agree with what was acknowledged:
// memory.list, the search by marker, by whole text and by shared word, and
// the counts all tell the same story. Then more writes on the restarted
// daemon, a check, a second stream and kill, and a check. Then the index
// images: read after a clean stop, still valid after a kill with no write
// since, rebuilt when torn or when writes came after them.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { AgentList, DaemonStatus, MemoryAdd, MemoryList, MemoryReflect, MemorySearch, type ResultOf } from '@memoryd/protocol';
import { cleanupAll, type DaemonHandle, prng, startDaemon, withTimeout } from '@memoryd/test-support';
import { connect, type RpcClient } from './helpers/rpc.js';
import { CrashModel, markersIn, TAG_WORDS, type Version, VOCABULARY, wordsOf } from './helpers/search-crash-model.js';
import { streamUntilKill } from './helpers/search-crash-stream.js';

after(cleanupAll);

/** A fact as memory.list and memory.search return it (score only in search). */
type ListedFact = ResultOf<typeof MemorySearch>['facts'][number];

/** Two agents, two writers each, so per-agent statistics see concurrent writers. */
const WRITERS = ['crash-a', 'crash-b', 'crash-a', 'crash-b'];
/** Bound of one stream up to its kill: hundreds of synced writes take a few seconds. */
const STREAM_MS = 30_000;
/** Searches in flight at once on the checking connection (the daemon allows 64). */
const CHECK_WIDTH = 32;

async function listAll(c: RpcClient, agentId: string): Promise<ListedFact[]> {
  const facts: ListedFact[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await c.ok(MemoryList, after === undefined ? { agentId, limit: 100 } : { agentId, limit: 100, after });
    facts.push(...r.facts);
    if (r.next === undefined) return facts;
    after = r.next;
  }
}

async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: CHECK_WIDTH }, lane));
}

function assertRanked(facts: readonly ListedFact[], what: string): void {
  for (let i = 0; i < facts.length; i++) {
    const s = facts[i]!.score;
    assert.ok(typeof s === 'number' && Number.isFinite(s) && s > 0, `${what}: score ${s} of ${facts[i]!.id}`);
    if (i > 0) assert.ok(s <= facts[i - 1]!.score!, `${what}: scores not best first at ${i}: ${facts.map((f) => f.score).join(', ')}`);
  }
}

/** What {@link verify} checked: versions current and removed, how the open ones settled, and its time. */
interface VerifyReport {
  current: number;
  removed: number;
  settled: { current: number; removed: number };
  ms: number;
}

/**
 * Lists each agent's current facts and checks them against the model, then
 * settles every `either` version by what was listed, then checks search
 * (by marker, by whole text, by shared word) and the counts against that
 * listing.
 */
async function verify(c: RpcClient, model: CrashModel, label: string): Promise<VerifyReport> {
  const t0 = Date.now();
  const listed = new Map<string, Map<string, ListedFact>>();
  let total = 0;
  for (const agentId of model.agents()) {
    const byMarker = new Map<string, ListedFact>();
    for (const f of await listAll(c, agentId)) {
      const ms = markersIn(f.content);
      assert.equal(ms.length, 1, `${label}: listed fact ${f.id} of ${agentId} has one marker: ${f.content}`);
      const v = model.find(ms[0]!);
      assert.ok(v && v.agentId === agentId, `${label}: listed ${ms[0]} of ${agentId} was written for this agent`);
      assert.equal(f.content, v.content, `${label}: listed ${v.marker} holds the text sent`);
      assert.ok(!byMarker.has(v.marker), `${label}: ${v.marker} listed twice`);
      byMarker.set(v.marker, f);
    }
    listed.set(agentId, byMarker);
    total += byMarker.size;
  }
  const listedOf = (v: Version) => listed.get(v.agentId)!.get(v.marker);

  for (const v of model.versions) {
    const f = listedOf(v);
    if (v.fate === 'current') assert.equal(f?.id, v.factId, `${label}: acknowledged current ${v.marker} (${v.factId}) is listed`);
    if (v.fate === 'removed') assert.equal(f, undefined, `${label}: acknowledged removed ${v.marker} is not listed`);
    if (f && v.factId !== undefined) assert.equal(f.id, v.factId, `${label}: ${v.marker} keeps its id`);
    if (v.replaces) {
      // An update cut off by the kill happened whole or not at all.
      const before = listedOf(v.replaces) !== undefined;
      assert.notEqual(before, f !== undefined, `${label}: exactly one of ${v.replaces.marker} and its update ${v.marker} is current`);
    }
  }
  // Settle what the kill left open by what the new daemon lists.
  const settled = { current: 0, removed: 0 };
  for (const v of model.versions) {
    if (v.fate !== 'either') continue;
    const f = listedOf(v);
    Object.assign(v, f ? { fate: 'current', factId: f.id } : { fate: 'removed' }, { replaces: undefined });
    settled[f ? 'current' : 'removed']++;
  }

  const status = await c.ok(DaemonStatus, {});
  assert.equal(status.facts, total, `${label}: daemon.status counts the listed facts`);
  const agents = await c.ok(AgentList, {});
  for (const [agentId, byMarker] of listed) {
    assert.equal(agents.agents.find((a) => a.agentId === agentId)?.facts, byMarker.size, `${label}: agent.list counts ${agentId}'s listed facts`);
  }

  const search = async (agentId: string, query: string, limit: number): Promise<ListedFact[]> => {
    const { facts } = await c.ok(MemorySearch, { agentId, query, limit });
    assertRanked(facts, `${label}: search ${JSON.stringify(query)}`);
    for (const f of facts) {
      const l = listed.get(agentId)!.get(markersIn(f.content)[0] ?? '');
      assert.equal(l?.id, f.id, `${label}: search ${JSON.stringify(query)} returned ${f.id} (${f.content}), not a listed fact of ${agentId}`);
    }
    return facts;
  };

  const current = model.versions.filter((v) => v.fate === 'current');
  const removed = model.versions.filter((v) => v.fate === 'removed');
  await inParallel(current, async (v) => {
    const byMarker = await search(v.agentId, v.marker, 10);
    assert.deepEqual(byMarker.map((f) => f.id), [v.factId], `${label}: ${v.marker} finds exactly its fact`);
    const byText = await search(v.agentId, v.content, 10);
    assert.ok(byText.some((f) => f.id === v.factId), `${label}: the whole text of ${v.marker} finds its fact in the top 10`);
  });
  await inParallel(removed, async (v) => {
    const hits = await search(v.agentId, v.marker, 10);
    assert.deepEqual(hits, [], `${label}: removed ${v.marker} is not found by its marker`);
  });
  // Shared words: every current fact holding the word (content or tag) is
  // found, up to the limit, and nothing else is.
  const words = [...VOCABULARY, ...TAG_WORDS];
  await inParallel(
    model.agents().flatMap((agentId) => words.map((w) => [agentId, w] as const)),
    async ([agentId, w]) => {
      const want = new Set<string>();
      for (const f of listed.get(agentId)!.values()) if (wordsOf(f.content).has(w) || f.tags?.includes(w)) want.add(f.id);
      const hits = await search(agentId, w, 100);
      assert.equal(hits.length, Math.min(100, want.size), `${label}: ${w} in ${agentId} finds every fact holding it, up to the limit`);
      for (const f of hits) assert.ok(want.has(f.id), `${label}: ${w} in ${agentId} found ${f.id}, which does not hold it`);
    },
  );
  return { current: current.length, removed: removed.length, settled, ms: Date.now() - t0 };
}

/** Acknowledged writes on a live daemon: a few adds, updates and deletes per agent, some on facts that survived a kill. */
async function quietWrites(c: RpcClient, model: CrashModel, seed: number): Promise<void> {
  const rand = prng(seed);
  for (const agentId of model.agents()) {
    for (let i = 0; i < 3; i++) {
      const v = model.newVersion(agentId, rand, i === 0);
      const r = await c.ok(MemoryAdd, { agentId, content: v.content, ...(v.tags ? { tags: v.tags } : {}) });
      Object.assign(v, { factId: r.factId, fate: 'current' });
    }
    const pool = model.versions.filter((v) => v.agentId === agentId && v.fate === 'current');
    assert.ok(pool.length >= 8, `${agentId} has facts to update and delete`);
    for (const old of pool.slice(0, 3)) {
      const v = model.newVersion(agentId, rand, false);
      const r = await c.ok(MemoryReflect, { agentId, action: 'update', factId: old.factId!, content: v.content });
      assert.ok(r.supersededBy !== undefined && r.factId === old.factId, `update answer: ${JSON.stringify(r)}`);
      old.fate = 'removed';
      Object.assign(v, { factId: r.supersededBy, fate: 'current' });
    }
    for (const old of pool.slice(3, 5)) {
      await c.ok(MemoryReflect, { agentId, action: 'delete', factId: old.factId! });
      old.fate = 'removed';
    }
  }
}

/** Streams until the `killAfter`th acknowledgement, SIGKILLs `d` by pid there, and restarts on its data dir. */
async function crashRound(d: DaemonHandle, model: CrashModel, killAfter: number, seed: number, diag: (m: string) => void): Promise<DaemonHandle> {
  const t0 = Date.now();
  const report = await withTimeout(
    streamUntilKill(model, { socket: d.socket, writers: WRITERS, slots: 4, killAfter, seed, kill: () => process.kill(d.pid, 'SIGKILL') }),
    STREAM_MS,
    `${killAfter} acknowledged writes and the kill`,
  );
  assert.deepEqual(await d.kill(), { code: null, signal: 'SIGKILL' }, 'the daemon died of our SIGKILL');
  assert.ok(report.inFlightAtKill > 0, 'writes were in flight at the kill');
  diag(`stream ${seed}, killed after ${Date.now() - t0} ms: ${JSON.stringify(report)}`);
  return startDaemon({ socket: d.socket, dataDir: d.dataDir, logLevel: 'warn' });
}

it('keeps search consistent with the facts across SIGKILLs in a stream of adds, updates and deletes', { timeout: 120_000 }, async (t) => {
  const model = new CrashModel();
  let d = await startDaemon({ logLevel: 'warn' });

  d = await crashRound(d, model, 300, 1, (m) => t.diagnostic(m));
  let c = await connect(d.socket);
  const first = await verify(c, model, 'after the first kill');
  t.diagnostic(`after the first kill: ${JSON.stringify(first)}`);
  assert.ok(first.current >= 50 && first.removed >= 50, `enough facts checked: ${JSON.stringify(first)}`);

  await quietWrites(c, model, 2);
  t.diagnostic(`after writes on the restarted daemon: ${JSON.stringify(await verify(c, model, 'after writes on the restarted daemon'))}`);
  c.socket.destroy();

  d = await crashRound(d, model, 200, 3, (m) => t.diagnostic(m));
  c = await connect(d.socket);
  const second = await verify(c, model, 'after the second kill');
  t.diagnostic(`after the second kill: ${JSON.stringify(second)}`);
  c.socket.destroy();

  // The index images: a clean stop writes them, the next start reads them.
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
  const images = () => readdirSync(join(d.dataDir, 'search')).filter((n) => n.endsWith('.index'));
  assert.equal(images().length, 2, 'one image per agent');
  d = await restartOnImages(d, model, 'read from the images');

  // A kill with no write since the images leaves them valid.
  assert.deepEqual(await d.kill(), { code: null, signal: 'SIGKILL' });
  d = await restartOnImages(d, model, 'images still valid after a kill with no writes');

  // A kill while an image was being written leaves its temporary file, or
  // (the disk's doing) a torn image: both are found, and the index rebuilt.
  assert.deepEqual(await d.kill(), { code: null, signal: 'SIGKILL' });
  const [torn] = images();
  const path = join(d.dataDir, 'search', torn!);
  writeFileSync(`${path}.tmp`, readFileSync(path).subarray(0, 1000));
  truncateSync(path, Math.floor(statSync(path).size / 2));
  d = await restartOnImages(d, model, 'a torn image rebuilt');
  assert.match(d.stderr(), /search index image damaged; rebuilding the index/, 'the torn image was found at its first read');

  // Writes after the images, then a kill: the images are older than the store, and rebuilt.
  d = await crashRound(d, model, 150, 4, (m) => t.diagnostic(m));
  c = await connect(d.socket);
  await verify(c, model, 'images older than the store after a kill');
  c.socket.destroy();
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
  assert.ok(!readdirSync(join(d.dataDir, 'search')).some((n) => n.endsWith('.tmp')), 'no temporary file left');
});

/**
 * Starts a daemon on `d`'s data dir (stopped or killed), checks its log
 * says both agents wait in images, and checks search against the model.
 */
async function restartOnImages(d: DaemonHandle, model: CrashModel, label: string): Promise<DaemonHandle> {
  const next = await startDaemon({ socket: d.socket, dataDir: d.dataDir, logLevel: 'debug' });
  await opened(next, { inImages: 2, rebuilding: 0 });
  const c = await connect(next.socket);
  await verify(c, model, label);
  c.socket.destroy();
  // The newest image is read ahead by the store as it opens, once.
  const ahead = next
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"search index image read ahead"'));
  assert.equal(ahead.length, 1, `${label}: the store read the newest image ahead`);
  return next;
}

/** Waits (bounded) for the daemon's log line on how the search indexes came back, and checks it. */
async function opened(d: DaemonHandle, want: { inImages: number; rebuilding: number }): Promise<void> {
  const deadline = Date.now() + 10_000;
  let line: { inImages?: number; rebuilding?: number } | undefined;
  while (line === undefined && Date.now() < deadline) {
    line = d
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"search indexes opened"'))
      .map((l) => JSON.parse(l) as { inImages: number; rebuilding: number })[0];
    if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.ok(line !== undefined, `no "search indexes opened" line: ${d.stderr()}`);
  assert.deepEqual({ inImages: line.inImages, rebuilding: line.rebuilding }, want);
}
