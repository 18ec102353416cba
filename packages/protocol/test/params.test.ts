// Each method's params schema: cases it must accept and cases it must
// reject, in the manner of sinclairzx81/typebox's
// test/runtime/compiler/object.ts. Limits have their own file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AdminExport,
  AdminImport,
  AgentList,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  DaemonHello,
  DaemonShutdown,
  DaemonStatus,
  MemoryAdd,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  Methods,
  validateParams,
} from '@memoryd/protocol';
import { TIME, ULID_A, ULID_B, accepts, rejects } from './helpers/cases.js';

const BAD_ULIDS = ['', 'abc', ULID_A.toLowerCase(), ULID_A.slice(1), `${ULID_A}0`, `${ULID_A.slice(0, 25)}U`, `${ULID_A.slice(0, 25)}I`, 42];

describe('params that are not an object', () => {
  for (const descriptor of Methods) {
    it(`${descriptor.method}: arrays, null and scalars are rejected as "params"`, () => {
      for (const params of [null, [], ['agent'], 'agent', 1, true]) rejects(descriptor, params, 'params');
    });
  }

  it('absent params count as {}', () => {
    for (const descriptor of [DaemonHello, DaemonStatus, AgentList, AdminExport, DaemonShutdown]) {
      accepts(descriptor, undefined);
    }
    rejects(MemoryAdd, undefined, 'agentId');
  });
});

describe('daemon.hello', () => {
  it('accepts', () => {
    accepts(DaemonHello, {});
    accepts(DaemonHello, { client: 'memoryd-mcp' });
    accepts(DaemonHello, { client: 'memoryd-mcp', clientVersion: '0.1.0' });
    accepts(DaemonHello, { client: '' });
  });
  it('rejects', () => {
    rejects(DaemonHello, { client: 1 }, 'client');
    rejects(DaemonHello, { clientVersion: { v: 1 } }, 'clientVersion');
  });
});

describe('daemon.status, agent.list, daemon.shutdown take no params', () => {
  for (const descriptor of [DaemonStatus, AgentList, DaemonShutdown]) {
    it(`${descriptor.method} accepts {}`, () => {
      accepts(descriptor, {});
      assert.deepEqual(Object.keys((descriptor.params as { properties: object }).properties), []);
    });
  }
});

describe('memory.add', () => {
  it('accepts', () => {
    accepts(MemoryAdd, { agentId: 'a', content: 'x' });
    accepts(MemoryAdd, { agentId: 'a', content: 'x', tags: [] });
    accepts(MemoryAdd, { agentId: 'a', content: 'x', tags: ['one', 'two words', 'ünïcödé'] });
    // Tags need not be unique: the schema does not dedupe.
    accepts(MemoryAdd, { agentId: 'a', content: 'x', tags: ['same', 'same'] });
  });
  it('rejects', () => {
    rejects(MemoryAdd, {}, 'agentId');
    rejects(MemoryAdd, { agentId: 'a' }, 'content');
    rejects(MemoryAdd, { content: 'x' }, 'agentId');
    rejects(MemoryAdd, { agentId: 'a', content: 5 }, 'content');
    rejects(MemoryAdd, { agentId: 'a', content: ['x'] }, 'content');
  });
});

describe('memory.search', () => {
  it('accepts', () => {
    accepts(MemorySearch, { agentId: 'a', query: 'what is stored' });
    accepts(MemorySearch, { agentId: 'a', query: 'the', limit: 5 });
  });
  it('rejects', () => {
    rejects(MemorySearch, { agentId: 'a' }, 'query');
    rejects(MemorySearch, { query: 'q' }, 'agentId');
    rejects(MemorySearch, { agentId: 'a', query: 'q', limit: '5' }, 'limit');
  });
});

describe('memory.list', () => {
  it('accepts', () => {
    accepts(MemoryList, { agentId: 'a' });
    accepts(MemoryList, { agentId: 'a', after: ULID_A, limit: 100 });
    accepts(MemoryList, { agentId: 'a', order: 'oldest' });
    accepts(MemoryList, { agentId: 'a', order: 'newest', after: ULID_A, tags: ['t'], since: TIME });
  });
  it('rejects', () => {
    rejects(MemoryList, {}, 'agentId');
    for (const after of BAD_ULIDS) rejects(MemoryList, { agentId: 'a', after }, 'after');
    for (const order of ['Newest', 'latest', 'desc', '', 1, true, ['newest']]) rejects(MemoryList, { agentId: 'a', order }, 'order');
  });
});

describe('memory.reflect', () => {
  it('accepts', () => {
    accepts(MemoryReflect, { agentId: 'a', action: 'update', factId: ULID_A, content: 'new text' });
    accepts(MemoryReflect, { agentId: 'a', action: 'delete', factId: ULID_B });
  });
  it('rejects', () => {
    rejects(MemoryReflect, { action: 'delete', factId: ULID_A }, 'agentId');
    rejects(MemoryReflect, { agentId: 'a', factId: ULID_A }, 'action');
    rejects(MemoryReflect, { agentId: 'a', action: 'delete' }, 'factId');
    for (const action of ['Update', 'DELETE', 'remove', 'insert', '', 1, null, ['update']]) {
      rejects(MemoryReflect, { agentId: 'a', action, factId: ULID_A }, 'action');
    }
    for (const factId of BAD_ULIDS) rejects(MemoryReflect, { agentId: 'a', action: 'delete', factId }, 'factId');
    rejects(MemoryReflect, { agentId: 'a', action: 'update', factId: ULID_A, content: '' }, 'content');
  });
});

describe('checkpoint.save', () => {
  it('accepts', () => {
    accepts(CheckpointSave, { agentId: 'a', state: {} });
    accepts(CheckpointSave, { agentId: 'a', state: { step: 3, notes: ['x', { y: null }] }, messageCount: 12 });
  });
  it('rejects', () => {
    rejects(CheckpointSave, { state: {} }, 'agentId');
    rejects(CheckpointSave, { agentId: 'a' }, 'state');
    rejects(CheckpointSave, { agentId: 'a', state: '{}' }, 'state');
  });
});

describe('checkpoint.resume', () => {
  it('accepts', () => {
    accepts(CheckpointResume, { agentId: 'a' });
    accepts(CheckpointResume, { agentId: 'a', checkpointId: ULID_A });
    accepts(CheckpointResume, { agentId: 'a', reportNotFound: true });
    accepts(CheckpointResume, { agentId: 'a', checkpointId: ULID_A, reportNotFound: false });
  });
  it('rejects', () => {
    rejects(CheckpointResume, {}, 'agentId');
    for (const checkpointId of BAD_ULIDS) rejects(CheckpointResume, { agentId: 'a', checkpointId }, 'checkpointId');
    for (const reportNotFound of ['true', 1, 0, {}]) {
      rejects(CheckpointResume, { agentId: 'a', reportNotFound }, 'reportNotFound');
    }
  });
});

describe('checkpoint.list', () => {
  it('accepts', () => {
    accepts(CheckpointList, { agentId: 'a' });
    accepts(CheckpointList, { agentId: 'a', after: ULID_A, limit: 1 });
  });
  it('rejects', () => {
    rejects(CheckpointList, {}, 'agentId');
    for (const after of BAD_ULIDS) rejects(CheckpointList, { agentId: 'a', after }, 'after');
  });
});

describe('admin.export', () => {
  it('accepts', () => {
    accepts(AdminExport, {});
    accepts(AdminExport, { agentId: 'a', limit: 500 });
    accepts(AdminExport, { cursor: 'opaque-cursor' });
  });
  it('rejects', () => {
    rejects(AdminExport, { agentId: 'a b' }, 'agentId');
    rejects(AdminExport, { cursor: 7 }, 'cursor');
  });
});

describe('admin.import', () => {
  const fact = { type: 'fact', agentId: 'a', id: ULID_A, content: 'x', createdAt: TIME };
  it('accepts', () => {
    accepts(AdminImport, { records: [] });
    accepts(AdminImport, { records: [fact] });
    // Records are validated one by one (a bad one is rejected by index, the
    // rest import), so the params schema lets any element through.
    accepts(AdminImport, { records: [fact, 42, null, { type: 'nope' }] });
  });
  it('rejects', () => {
    rejects(AdminImport, {}, 'records');
    for (const records of [fact, 'x', null, { 0: fact }]) rejects(AdminImport, { records }, 'records');
  });
});

describe('a success returns the params it was given', () => {
  it('value is the same object', () => {
    const params = { agentId: 'a', content: 'x' };
    const result = validateParams(MemoryAdd, params);
    assert.ok(result.ok);
    assert.equal(result.value, params);
  });
});
