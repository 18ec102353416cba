// Issue 16: the records a store keeps have a codec of their own, apart
// from the wire's schemas (ADR 0027). A later daemon may tighten what a
// client may send; what an earlier one stored must still read back. And
// a record that is not usable (an id or a time not in the form keys and
// ordering rely on, no text) is still refused, never served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FactRecord, Limits, validate } from '@memoryd/protocol';
import { DaemonErrorCodes } from '@memoryd/daemon';
import { corruptRecords, openTempStore, rejectsWith, reopen, useStoreCleanup } from './helpers/store.js';

useStoreCleanup();

describe('stored records', () => {
  it('reads back a fact that the wire would refuse today', async () => {
    const { store, dataDir } = await openTempStore();
    const { factId, createdAt } = await store.addFact({ agentId: 'a', content: 'a short fact' });
    await store.close();
    // As if an earlier daemon had allowed more than today's limits.
    const stored = {
      id: factId,
      content: 'x'.repeat(Limits.contentMaxBytes + 1),
      tags: Array.from({ length: Limits.tagsMaxItems + 1 }, (_, i) => `${'t'.repeat(Limits.tagMaxCodePoints + 1)}${i}`),
      createdAt,
    };
    assert.equal(validate(FactRecord, { type: 'fact', agentId: 'a', ...stored }, 'record').ok, false, 'the wire refuses it');
    assert.equal(await corruptRecords(dataDir, factId, JSON.stringify(stored)), 1);
    const again = await reopen(store, dataDir);
    const { facts } = await again.listFacts({ agentId: 'a' });
    assert.deepEqual(
      facts.map((f) => [f.id, f.content, f.tags]),
      [[factId, stored.content, stored.tags]],
    );
  });

  for (const [why, value] of [
    ['no text', (id: string, at: string) => ({ id, content: '', createdAt: at })],
    ['a time not in the stored form', (id: string) => ({ id, content: 'text', createdAt: '2026-12-04 10:00' })],
    ['an id not in the stored form', (_: string, at: string) => ({ id: 'not-a-ulid', content: 'text', createdAt: at })],
    ['a tag that is not text', (id: string, at: string) => ({ id, content: 'text', createdAt: at, tags: [1] })],
  ] as const) {
    it(`refuses a stored fact with ${why}`, async () => {
      const { store, dataDir } = await openTempStore();
      const { factId, createdAt } = await store.addFact({ agentId: 'a', content: 'a fact to damage' });
      await store.close();
      assert.equal(await corruptRecords(dataDir, factId, JSON.stringify(value(factId, createdAt))), 1);
      const again = await reopen(store, dataDir);
      const err = await rejectsWith(again.listFacts({ agentId: 'a' }), DaemonErrorCodes.Decode);
      assert.match(err.message, new RegExp(factId));
    });
  }
});
