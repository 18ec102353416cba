import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSplitter, MAX_LINE_BYTES } from '@memoryd/protocol';

const utf8 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

describe('LineSplitter (NDJSON framing)', () => {
  test('splits on \\n, keeps a partial line until its \\n, answers the unterminated last line on end()', () => {
    const s = new LineSplitter(utf8);
    assert.deepEqual(s.push(bytes('{"a":1}\n{"b"')), ['{"a":1}']);
    assert.deepEqual(s.push(bytes(':2}\n\n{"c":3}')), ['{"b":2}', '']);
    assert.equal(s.end(), '{"c":3}');
    assert.equal(s.end(), undefined);
  });

  test('a multi-byte character split across chunks decodes whole', () => {
    const s = new LineSplitter(utf8);
    const line = bytes('"café 🧠"\n');
    const cut = line.indexOf(0xf0) + 2; // inside the 4-byte emoji
    assert.deepEqual(s.push(line.subarray(0, cut)), []);
    assert.deepEqual(s.push(line.subarray(cut)), ['"café 🧠"']);
  });

  test('a kept partial line is a copy: the caller may reuse its buffer', () => {
    const s = new LineSplitter(utf8);
    const chunk = bytes('abc');
    s.push(chunk);
    chunk.fill(0x78);
    assert.deepEqual(s.push(bytes('\n')), ['abc']);
  });

  test('a line of exactly the limit passes; one byte more is overflow, reported once and for good', () => {
    const max = 16;
    const ok = new LineSplitter(utf8, max);
    assert.deepEqual(ok.push(bytes('x'.repeat(max) + '\n')), ['x'.repeat(max)]);
    const over = new LineSplitter(utf8, max);
    assert.deepEqual(over.push(bytes('x'.repeat(10))), []);
    assert.equal(over.push(bytes('x'.repeat(7))), 'overflow');
    assert.equal(over.push(bytes('\n{}\n')), 'overflow');
    assert.equal(over.end(), undefined);
  });

  test('the default limit is 8 MiB', () => {
    assert.equal(MAX_LINE_BYTES, 8 * 1024 * 1024);
  });
});
