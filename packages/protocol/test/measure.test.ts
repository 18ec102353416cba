// The measuring helpers the limits rely on: utf8Bytes against Node's own
// encoder, codePoints against string iteration, jsonDepth's level count,
// and fieldOf's path rendering.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codePoints, fieldOf, jsonDepth, utf8Bytes } from '@memoryd/protocol';
import { prng } from '@memoryd/test-support';

describe('utf8Bytes', () => {
  it('matches Buffer.byteLength on fixed cases, lone surrogates included', () => {
    const cases = ['', 'a', 'é', '€', '😀', 'a😀é€', '\ud800', '\udc00', '\ud800a', 'a\udfff', '\udc00\ud800', '😀'.slice(0, 1), '\u0000', '\u07ff', '\u0800', '\uffff'];
    for (const s of cases) assert.equal(utf8Bytes(s), Buffer.byteLength(s, 'utf8'), JSON.stringify(s));
  });

  it('matches Buffer.byteLength on 2,000 random strings of all code unit ranges', () => {
    const rand = prng(20261202);
    const ranges = [[0, 0x7f], [0x80, 0x7ff], [0x800, 0xd7ff], [0xd800, 0xdfff], [0xe000, 0xffff]] as const;
    for (let n = 0; n < 2_000; n++) {
      let s = '';
      const len = Math.floor(rand() * 12);
      for (let i = 0; i < len; i++) {
        const [lo, hi] = ranges[Math.floor(rand() * ranges.length)]!;
        s += String.fromCharCode(lo + Math.floor(rand() * (hi - lo + 1)));
      }
      assert.equal(utf8Bytes(s), Buffer.byteLength(s, 'utf8'), JSON.stringify(s));
    }
  });
});

describe('codePoints', () => {
  it('counts an astral character once', () => {
    assert.equal(codePoints(''), 0);
    assert.equal(codePoints('abc'), 3);
    assert.equal(codePoints('😀'), 1);
    assert.equal(codePoints('a😀b'), 3);
    assert.equal(codePoints('é'), 1);
    // Combining sequences are several code points.
    assert.equal(codePoints('e\u0301'), 2);
  });
});

describe('jsonDepth', () => {
  it('counts objects and arrays; scalars are 0', () => {
    assert.equal(jsonDepth(1, 64), 0);
    assert.equal(jsonDepth(null, 64), 0);
    assert.equal(jsonDepth({}, 64), 1);
    assert.equal(jsonDepth([], 64), 1);
    assert.equal(jsonDepth({ a: [] }, 64), 2);
    assert.equal(jsonDepth({ a: 1, b: { c: [{}] }, d: [] }, 64), 4);
  });

  it('stops once past the limit', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    assert.ok(jsonDepth(deep, 64) > 64);
  });
});

describe('fieldOf', () => {
  it('renders TypeBox paths as field names', () => {
    assert.equal(fieldOf(''), 'params');
    assert.equal(fieldOf('/agentId'), 'agentId');
    assert.equal(fieldOf('/tags/1'), 'tags[1]');
    assert.equal(fieldOf('/records/3/content'), 'records[3].content');
    assert.equal(fieldOf('/content', 'records[3]'), 'records[3].content');
    assert.equal(fieldOf('/tags/0', 'records[3]'), 'records[3].tags[0]');
    assert.equal(fieldOf('/a~1b/c~0d'), 'a/b.c~d');
  });
});
