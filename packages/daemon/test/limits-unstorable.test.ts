// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md, "Text that is stored is stored exactly, or refused"
// (ADR 0031): U+0000 and an unpaired surrogate in a fact's content or
// tags are -32602 naming the field, on every backend (PostgreSQL's text
// cannot hold the one, and UTF-8 turns the other into U+FFFD); an import
// rejects such a record alone; a checkpoint's state keeps both exactly;
// everything else (a surrogate pair, U+FFFD itself, other controls)
// comes back byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdminImport, CheckpointResume, CheckpointSave, MemoryAdd, MemoryList, MemoryReflect, MemorySearch } from '@memoryd/protocol';
import { useDaemon } from './helpers/fixture.js';
import { makeUlid } from '@memoryd/test-support';

const shared = useDaemon();

const NUL = 'before\u0000after';
const LONE_HIGH = 'broken \ud83d here';
const LONE_LOW = 'broken \ude00 here';

describe('text no store can keep exactly', () => {
  it('refuses U+0000 and unpaired surrogates in content and tags, naming the field', async () => {
    const c = shared.client;
    const cases: Array<[unknown, string, RegExp]> = [
      [{ agentId: 'unstorable', content: NUL }, 'content', /U\+0000/],
      [{ agentId: 'unstorable', content: LONE_HIGH }, 'content', /unpaired surrogate \(U\+D83D\) at character 7/],
      [{ agentId: 'unstorable', content: LONE_LOW }, 'content', /unpaired surrogate \(U\+DE00\)/],
      [{ agentId: 'unstorable', content: 'tagged', tags: ['fine', `x\u0000`] }, 'tags[1]', /U\+0000/],
      [{ agentId: 'unstorable', content: 'tagged', tags: ['\udfff'] }, 'tags[0]', /unpaired surrogate/],
    ];
    for (const [params, field, reason] of cases) {
      const err = await c.fail('memory.add', params);
      assert.equal(err.code, -32602, JSON.stringify(params));
      const data = err.data as { field: string; reason: string };
      assert.equal(data.field, field);
      assert.match(data.reason, reason);
    }
    const { factId } = await c.ok(MemoryAdd, { agentId: 'unstorable', content: 'a fact to update' });
    const err = await c.fail('memory.reflect', { agentId: 'unstorable', action: 'update', factId, content: NUL });
    assert.equal(err.code, -32602);
    assert.equal((err.data as { field: string }).field, 'content');
    assert.deepEqual((await c.ok(MemoryList, { agentId: 'unstorable' })).facts.map((f) => f.content), ['a fact to update'], 'nothing refused was stored');
  });

  it('stores every other text byte for byte', async () => {
    const c = shared.client;
    const texts = ['pair \ud83d\ude00 emoji', 'replacement \ufffd kept', 'controls \u0001\u001f\u007f kept', 'ʻOhana means family'];
    for (const content of texts) {
      const { factId } = await c.ok(MemoryAdd, { agentId: 'storable', content, tags: [content.slice(0, 10)] });
      const { facts } = await c.ok(MemoryList, { agentId: 'storable', limit: 100 });
      const got = facts.find((f) => f.id === factId);
      assert.equal(got?.content, content);
      assert.deepEqual(got?.tags, [content.slice(0, 10)]);
    }
    const { facts } = await c.ok(MemorySearch, { agentId: 'storable', query: 'ʻOhana' });
    assert.equal(facts[0]?.content, 'ʻOhana means family');
    const { factId } = await c.ok(MemoryAdd, { agentId: 'storable', content: 'to be updated' });
    const { supersededBy } = await c.ok(MemoryReflect, { agentId: 'storable', action: 'update', factId, content: texts[0]! + ' again' });
    assert.ok(supersededBy !== undefined);
  });

  it('keeps U+0000 and unpaired surrogates in a checkpoint state exactly', async () => {
    const c = shared.client;
    const state = { nul: NUL, high: LONE_HIGH, low: LONE_LOW, [`key\u0000`]: ['\ud800'] };
    await c.ok(CheckpointSave, { agentId: 'unstorable-state', state });
    const resumed = await c.ok(CheckpointResume, { agentId: 'unstorable-state' });
    assert.ok('checkpoint' in resumed);
    assert.deepEqual(resumed.checkpoint.state, state);
  });

  it('rejects such an import record alone, and imports the rest', async () => {
    const c = shared.client;
    const base = Date.UTC(2024, 0, 1);
    const records = Array.from({ length: 10 }, (_, i) => ({
      type: 'fact',
      agentId: 'unstorable-import',
      id: makeUlid(base + i, i),
      content: i === 3 ? NUL : i === 6 ? LONE_LOW : `imported fact ${i}`,
      createdAt: new Date(base + i).toISOString(),
      ...(i === 8 ? { tags: ['\u0000'] } : {}),
    }));
    const r = await c.ok(AdminImport, { records });
    assert.equal(r.imported, 7);
    assert.deepEqual(r.rejected.map((x) => [x.index, x.code]), [[3, -32602], [6, -32602], [8, -32602]]);
    assert.match(r.rejected[0]!.reason, /content.*U\+0000/);
    assert.match(r.rejected[1]!.reason, /content.*unpaired surrogate/);
    assert.match(r.rejected[2]!.reason, /tags\[0\].*U\+0000/);
    const { facts } = await c.ok(MemoryList, { agentId: 'unstorable-import', limit: 100 });
    assert.deepEqual(facts.map((f) => f.content), [0, 1, 2, 4, 5, 7, 9].map((i) => `imported fact ${i}`));
  });
});
