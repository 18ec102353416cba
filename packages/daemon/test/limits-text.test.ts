// store: every backend. run-tests.mjs runs this file again with the daemon on PostgreSQL (ADR 0027).
// docs/protocol.md "Limits", each just inside and just outside: agentId (1-128 of
// [A-Za-z0-9._:@-], on every method that takes one), content (1-16,384
// UTF-8 bytes, not only white space), tags (at most 32, each 1-64 code
// points, not only white space), query (1-1,024 bytes), limit (1-100;
// export 1-1,000), and `null` for an absent optional param being invalid.
// Sizes are counted in bytes or code points, never UTF-16 units: the
// multi-byte cases pass a UTF-16 length check but break the real rule.
import { describe } from 'node:test';
import { accept, type LimitCase, reject, runLimitCases } from './helpers/limit-cases.js';
import { useDaemon } from './helpers/fixture.js';
import { ABSENT_ID, bytesOf } from './helpers/shapes.js';

const shared = useDaemon();

const allowedChars = 'AZaz09._:@-';
const agentIdMethods: Array<[string, (agentId: unknown) => unknown]> = [
  ['memory.add', (agentId) => ({ agentId, content: 'limit probe' })],
  ['memory.search', (agentId) => ({ agentId, query: 'probe' })],
  ['memory.list', (agentId) => ({ agentId })],
  ['checkpoint.save', (agentId) => ({ agentId, state: {} })],
  ['checkpoint.resume', (agentId) => ({ agentId, reportNotFound: true })],
  ['checkpoint.list', (agentId) => ({ agentId })],
  ['admin.export', (agentId) => ({ agentId })],
];

describe('agentId', () => {
  const cases: LimitCase[] = [];
  for (const [method, params] of agentIdMethods) {
    cases.push(accept('a 128-char agentId', method, params('x'.repeat(128))));
    cases.push(accept('a 1-char agentId', method, params('Q')));
    cases.push(reject('a 129-char agentId', method, params('x'.repeat(129)), 'agentId'));
    cases.push(reject('an empty agentId', method, params(''), 'agentId'));
    cases.push(reject('an agentId with a slash', method, params('a/b'), 'agentId'));
  }
  cases.push(accept('every allowed character', 'memory.add', { agentId: allowedChars.repeat(11).slice(0, 128), content: 'c' }));
  for (const bad of ['a b', 'a#b', 'caf\u00e9', 'a\u0000b', 'a\nb', 'a\\b', 'a,b', 'a*', '\u0130', 'a\u200bb', 'a"b']) {
    cases.push(reject(`agentId ${JSON.stringify(bad)}`, 'memory.add', { agentId: bad, content: 'c' }, 'agentId'));
  }
  cases.push(reject('a numeric agentId', 'memory.add', { agentId: 7, content: 'c' }, 'agentId'));
  cases.push(reject('a missing agentId', 'memory.add', { content: 'c' }, 'agentId'));
  cases.push(
    reject('a 129-char agentId on reflect', 'memory.reflect', { agentId: 'x'.repeat(129), action: 'delete', factId: ABSENT_ID }, 'agentId'),
  );
  runLimitCases(shared, cases);
});

describe('content', () => {
  const add = (content: string) => ({ agentId: 'limits-content', content });
  runLimitCases(shared, [
    accept('1 byte of content', 'memory.add', add('.')),
    accept('16384 ASCII bytes', 'memory.add', add(bytesOf(16384))),
    reject('16385 ASCII bytes', 'memory.add', add(bytesOf(16385)), 'content'),
    accept('16384 bytes of 2-byte chars', 'memory.add', add(bytesOf(16384, '\u00e9'))),
    reject('16385 bytes of 2-byte chars', 'memory.add', add(bytesOf(16385, '\u00e9')), 'content'),
    accept('16384 bytes of 3-byte chars', 'memory.add', add(bytesOf(16384, '\u20ac'))),
    reject('16386 bytes in 5462 3-byte chars', 'memory.add', add('\u20ac'.repeat(5462)), 'content'),
    accept('16384 bytes of 4-byte chars', 'memory.add', add(bytesOf(16384, '\u{1f600}'))),
    reject('16385 bytes of 4-byte chars', 'memory.add', add(bytesOf(16385, '\u{1f600}')), 'content'),
    reject('empty content', 'memory.add', add(''), 'content'),
    reject('spaces only', 'memory.add', add('     '), 'content'),
    reject('tabs and newlines only', 'memory.add', add('\t\n\r \n'), 'content'),
    reject('Unicode white space only', 'memory.add', add('\u00a0\u2003\u3000'), 'content'),
    reject('a number as content', 'memory.add', { agentId: 'limits-content', content: 42 }, 'content'),
    reject('16385 bytes as an update', 'memory.reflect', { agentId: 'limits-content', action: 'update', factId: ABSENT_ID, content: bytesOf(16385) }, 'content'),
    reject('blank update content', 'memory.reflect', { agentId: 'limits-content', action: 'update', factId: ABSENT_ID, content: '  ' }, 'content'),
  ]);
});

describe('tags', () => {
  const add = (tags: unknown) => ({ agentId: 'limits-tags', content: `tags ${JSON.stringify(tags).length}`, tags });
  const many = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
  runLimitCases(shared, [
    accept('32 tags', 'memory.add', add(many(32))),
    reject('33 tags', 'memory.add', add(many(33)), 'tags'),
    accept('no tags', 'memory.add', add([])),
    accept('a 64-code-point tag', 'memory.add', add(['x'.repeat(64)])),
    reject('a 65-code-point tag', 'memory.add', add(['ok', 'x'.repeat(65)]), 'tags[1]'),
    accept('64 astral code points (128 UTF-16 units)', 'memory.add', add(['\u{1f600}'.repeat(64)])),
    reject('65 astral code points', 'memory.add', add(['\u{1f600}'.repeat(65)]), 'tags[0]'),
    accept('64 mixed code points', 'memory.add', add(['\u{1d49c}\u00e9'.repeat(32)])),
    reject('an empty tag', 'memory.add', add(['a', 'b', '']), 'tags[2]'),
    reject('a white-space tag', 'memory.add', add(['a', ' \t ']), 'tags[1]'),
    reject('a non-string tag', 'memory.add', add([5]), 'tags[0]'),
    reject('tags as a string', 'memory.add', add('a,b'), 'tags'),
  ]);
});

describe('query', () => {
  const q = (query: unknown) => ({ agentId: 'limits-query', query });
  runLimitCases(shared, [
    accept('a 1-byte query', 'memory.search', q('a')),
    accept('a 1024-byte query', 'memory.search', q('word '.repeat(204) + 'four')),
    reject('a 1025-byte query', 'memory.search', q('word '.repeat(205)), 'query'),
    accept('1024 bytes of 3-byte chars', 'memory.search', q(bytesOf(1024, '\u20ac'))),
    reject('1026 bytes in 342 3-byte chars', 'memory.search', q('\u20ac'.repeat(342)), 'query'),
    reject('an empty query', 'memory.search', q(''), 'query'),
    reject('a missing query', 'memory.search', { agentId: 'limits-query' }, 'query'),
  ]);
});

describe('limit', () => {
  const cases: LimitCase[] = [];
  const methods: Array<[string, Record<string, unknown>]> = [
    ['memory.search', { agentId: 'limits-limit', query: 'x' }],
    ['memory.list', { agentId: 'limits-limit' }],
    ['checkpoint.list', { agentId: 'limits-limit' }],
  ];
  for (const [method, base] of methods) {
    for (const limit of [1, 100]) cases.push(accept(`limit ${limit}`, method, { ...base, limit }));
    for (const limit of [0, 101, 1.5, -1, '10', true]) {
      cases.push(reject(`limit ${JSON.stringify(limit)}`, method, { ...base, limit }, 'limit'));
    }
  }
  for (const limit of [1, 1000]) cases.push(accept(`export limit ${limit}`, 'admin.export', { limit }));
  for (const limit of [0, 1001, 2.5]) cases.push(reject(`export limit ${limit}`, 'admin.export', { limit }, 'limit'));
  runLimitCases(shared, cases);
});

describe('null is never a stand-in for an absent optional param', () => {
  const a = 'limits-null';
  runLimitCases(shared, [
    reject('tags: null', 'memory.add', { agentId: a, content: 'x', tags: null }, 'tags'),
    reject('limit: null', 'memory.search', { agentId: a, query: 'x', limit: null }, 'limit'),
    reject('after: null', 'memory.list', { agentId: a, after: null }, 'after'),
    reject('limit: null', 'memory.list', { agentId: a, limit: null }, 'limit'),
    reject('content: null', 'memory.reflect', { agentId: a, action: 'delete', factId: ABSENT_ID, content: null }, 'content'),
    reject('messageCount: null', 'checkpoint.save', { agentId: a, state: {}, messageCount: null }, 'messageCount'),
    reject('checkpointId: null', 'checkpoint.resume', { agentId: a, checkpointId: null }, 'checkpointId'),
    reject('reportNotFound: null', 'checkpoint.resume', { agentId: a, reportNotFound: null }, 'reportNotFound'),
    reject('after: null', 'checkpoint.list', { agentId: a, after: null }, 'after'),
    reject('agentId: null', 'admin.export', { agentId: null }, 'agentId'),
    reject('cursor: null', 'admin.export', { cursor: null }, 'cursor'),
    reject('limit: null', 'admin.export', { limit: null }, 'limit'),
    reject('client: null', 'daemon.hello', { client: null }, 'client'),
    reject('clientVersion: null', 'daemon.hello', { clientVersion: null }, 'clientVersion'),
  ]);
});
