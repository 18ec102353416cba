// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useDaemonSession } from './helpers/fixture.js';
import { assertFailure, assertSuccess, type Session } from './helpers/mcp.js';

// Every success of every tool, in process (SDK Client over InMemoryTransport,
// the shim's Server, a real DaemonClient, a real daemon): structuredContent
// valid against the outputSchema as received, and the prose byte for byte.

const q = (s: string) => JSON.stringify(s);

interface Hit {
  id: string;
  content: string;
  created_at: string;
  score: number;
  tags?: string[];
}

describe('tools in process against a real daemon', () => {
  let s: Session;
  useDaemonSession((started) => ({ s } = started));

  const add = async (agent: string, content: string, tags?: string[]) => {
    const r = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: agent, content, ...(tags ? { tags } : {}) }));
    return r.structured['fact_id'] as string;
  };

  test('memory_search with 0, 1 and 2 results', async () => {
    // Quotes and backslashes show that "A" and "Q" are JSON.
    const agent = 'search:a.b@c-d_e';
    const none = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'zebra "stripes"' }));
    assert.deepEqual(none.structured, { agent_id: agent, query: 'zebra "stripes"', count: 0, facts: [] });
    assert.equal(none.text, `No facts found for agent "search:a.b@c-d_e" matching "zebra \\"stripes\\"".`);

    const striped = await add(agent, 'The zebra is striped');
    const lion = await add(agent, 'A zebra met a lion\nat the river', ['animals', 'africa']);

    const one = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'lion' }));
    assert.equal(one.structured['count'], 1);
    const [hit] = one.structured['facts'] as Hit[];
    assert.equal(hit!.id, lion);
    assert.equal(hit!.content, 'A zebra met a lion\nat the river');
    assert.deepEqual(hit!.tags, ['animals', 'africa']);
    assert.equal(typeof hit!.score, 'number');
    assert.match(hit!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(one.text, `Found 1 fact for agent ${q(agent)} matching "lion":\n1. [${lion}] A zebra met a lion\nat the river`);

    const two = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'zebra', limit: 5 }));
    const facts = two.structured['facts'] as Hit[];
    assert.equal(two.structured['count'], 2);
    assert.deepEqual(facts.map((f) => f.id).sort(), [striped, lion].sort());
    const untagged = facts.find((f) => f.id === striped)!;
    assert.equal('tags' in untagged, false, 'a fact without tags has no tags key');
    assert.ok(facts[0]!.score >= facts[1]!.score, 'best first');
    const lines = facts.map((f, i) => `${i + 1}. [${f.id}] ${f.content}`);
    assert.equal(two.text, [`Found 2 facts for agent ${q(agent)} matching "zebra":`, ...lines].join('\n'));

    const limited = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'zebra', limit: 1 }));
    assert.equal(limited.structured['count'], 1);
  });

  test('memory_search with filters: only facts that pass, the filters echoed and in the prose', async () => {
    const agent = 'search-filtered';
    const work = await add(agent, 'The zebra report is due', ['Work']);
    await add(agent, 'The zebra at the zoo', ['home']);
    const since = '2000-01-01T00:00:00+01:00';
    const r = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'zebra', tags: ['work'], since }));
    assert.deepEqual(r.structured['tags'], ['work']);
    assert.equal(r.structured['since'], since);
    assert.equal('until' in r.structured, false);
    assert.deepEqual((r.structured['facts'] as Hit[]).map((f) => f.id), [work]);
    assert.equal(r.text, `Found 1 fact for agent ${q(agent)} matching "zebra" tagged "work" since ${since}:\n1. [${work}] The zebra report is due`);
    const none = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'zebra', tags: ['Work', 'home'], until: '2001-01-01T00:00:00Z' }));
    assert.equal(none.text, `No facts found for agent ${q(agent)} matching "zebra" tagged "Work", "home" until 2001-01-01T00:00:00Z.`);
    assert.match(assertFailure(await s.call('memory_search', { agent_id: agent, query: 'zebra', since: 'last week' })), /^invalid arguments: since: /);
  });

  test('memory_add and a duplicate add', async () => {
    const agent = 'adder';
    const first = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: agent, content: 'Prefers green tea', tags: ['pref'] }));
    const id = first.structured['fact_id'] as string;
    assert.deepEqual(first.structured, { agent_id: agent, stored: true, fact_id: id });
    assert.equal(first.text, `Stored fact ${id} for agent "adder".`);

    const again = assertSuccess(s, 'memory_add', await s.call('memory_add', { agent_id: agent, content: '  prefers GREEN   tea ' }));
    assert.deepEqual(again.structured, { agent_id: agent, stored: true, fact_id: id, duplicate: true });
    assert.equal(again.text, `Stored fact ${id} for agent "adder".`);
  });

  test('checkpoint_save and checkpoint_resume, with and without message_count', async () => {
    const agent = 'saver';
    const state1 = { task: 'write the shim', steps: [1, 2, { done: false }], note: null, nested: { 'quote"d': 'é' } };
    const saved1 = assertSuccess(s, 'checkpoint_save', await s.call('checkpoint_save', { agent_id: agent, state: state1 }));
    const id1 = saved1.structured['checkpoint_id'] as string;
    const at1 = saved1.structured['created_at'] as string;
    assert.deepEqual(saved1.structured, { agent_id: agent, checkpoint_id: id1, created_at: at1 });
    assert.equal(saved1.text, `Saved checkpoint ${id1} for agent "saver" at ${at1}.`);

    const resumed1 = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: agent }));
    assert.deepEqual(resumed1.structured, { id: id1, created_at: at1, state: state1 });
    assert.equal(
      resumed1.text,
      [`Checkpoint ${id1} for agent "saver" (created ${at1})`, 'State:', JSON.stringify(state1, null, 2)].join('\n'),
    );

    const state2 = { task: 'test the shim' };
    const saved2 = assertSuccess(s, 'checkpoint_save', await s.call('checkpoint_save', { agent_id: agent, state: state2, message_count: 42 }));
    const id2 = saved2.structured['checkpoint_id'] as string;
    const at2 = saved2.structured['created_at'] as string;
    assert.equal(saved2.text, `Saved checkpoint ${id2} for agent "saver" at ${at2}.`);

    const latest = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: agent }));
    assert.deepEqual(latest.structured, { id: id2, created_at: at2, state: state2, message_count: 42 });
    assert.equal(
      latest.text,
      [`Checkpoint ${id2} for agent "saver" (created ${at2})`, 'Messages: 42', 'State:', JSON.stringify(state2, null, 2)].join('\n'),
    );

    const byId = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: agent, checkpoint_id: id1 }));
    assert.deepEqual(byId.structured, { id: id1, created_at: at1, state: state1 });
  });

  test('message_count 0 is present, not dropped', async () => {
    const saved = assertSuccess(s, 'checkpoint_save', await s.call('checkpoint_save', { agent_id: 'zero', state: {}, message_count: 0 }));
    const r = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: 'zero' }));
    assert.equal(r.structured['message_count'], 0);
    assert.equal(r.text, [`Checkpoint ${saved.structured['checkpoint_id']} for agent "zero" (created ${saved.structured['created_at']})`, 'Messages: 0', 'State:', '{}'].join('\n'));
  });

  test('no checkpoint: on_missing "error" (the default) and "empty"', async () => {
    const agent = 'nobody';
    assert.equal(assertFailure(await s.call('checkpoint_resume', { agent_id: agent })), 'No checkpoint found for agent "nobody".');
    assert.equal(assertFailure(await s.call('checkpoint_resume', { agent_id: agent, on_missing: 'error' })), 'No checkpoint found for agent "nobody".');
    const empty = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: agent, on_missing: 'empty' }));
    assert.deepEqual(empty.structured, { agent_id: agent, found: false });
    assert.equal(empty.text, 'No checkpoint found for agent "nobody".');
    // A given id the agent does not have is absence too, not an error.
    const unknownId = assertSuccess(
      s,
      'checkpoint_resume',
      await s.call('checkpoint_resume', { agent_id: agent, checkpoint_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', on_missing: 'empty' }),
    );
    assert.deepEqual(unknownId.structured, { agent_id: agent, found: false });
  });

  test('memory_reflect update then delete', async () => {
    const agent = 'reflector';
    const old = await add(agent, 'The office is in Paris');
    const upd = assertSuccess(
      s,
      'memory_reflect',
      await s.call('memory_reflect', { agent_id: agent, action: 'update', fact_id: old, content: 'The office is in Lyon' }),
    );
    const current = upd.structured['fact_id'] as string;
    assert.deepEqual(upd.structured, { action: 'update', agent, ok: true, fact_id: current, superseded_id: old });
    assert.notEqual(current, old);
    assert.equal(upd.text, `Applied update to fact ${old} for agent "reflector".`);

    const found = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'office' }));
    const facts = found.structured['facts'] as Hit[];
    assert.deepEqual(facts.map((f) => f.content), ['The office is in Lyon']);
    assert.equal(facts[0]!.id, current, 'the returned fact_id is the current fact: the next call can use it');

    // Tags alone: a new version with the same text and the new tags.
    const retagged = assertSuccess(s, 'memory_reflect', await s.call('memory_reflect', { agent_id: agent, action: 'update', fact_id: current, tags: ['office', 'moved'] }));
    const tagged = retagged.structured['fact_id'] as string;
    const byTag = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'office', tags: ['moved'] }));
    assert.deepEqual((byTag.structured['facts'] as Hit[]).map((f) => [f.id, f.content, f.tags]), [[tagged, 'The office is in Lyon', ['office', 'moved']]]);

    const del = assertSuccess(s, 'memory_reflect', await s.call('memory_reflect', { agent_id: agent, action: 'delete', fact_id: tagged }));
    assert.deepEqual(del.structured, { action: 'delete', agent, ok: true, fact_id: tagged });
    assert.equal(del.text, `Applied delete to fact ${tagged} for agent "reflector".`);
    const gone = assertSuccess(s, 'memory_search', await s.call('memory_search', { agent_id: agent, query: 'office' }));
    assert.equal(gone.structured['count'], 0);
  });
});

describe('resumeOnMissing "empty" as the server default', () => {
  let s: Session;
  useDaemonSession((started) => ({ s } = started), { resumeOnMissing: 'empty' });

  test('absence is {agent_id, found: false} unless the call asks for "error"', async () => {
    const empty = assertSuccess(s, 'checkpoint_resume', await s.call('checkpoint_resume', { agent_id: 'A' }));
    assert.deepEqual(empty.structured, { agent_id: 'A', found: false });
    assert.equal(empty.text, 'No checkpoint found for agent "A".');
    assert.equal(assertFailure(await s.call('checkpoint_resume', { agent_id: 'A', on_missing: 'error' })), 'No checkpoint found for agent "A".');
  });
});
