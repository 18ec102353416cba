// An index saved as an image and read back is the same index: it answers
// every query as the original does, and keeps doing so through further
// adds and removes on both. A torn or damaged image is refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DocTerms, ResidentIndex, analyzeQuery, checksumHolds, decodeImage, docTerms, encodeImage } from '@memoryd/daemon/search';
import { prng as random } from '@memoryd/test-support';
import { ReferenceIndex } from './helpers/reference-index.js';

const WORDS = Array.from({ length: 400 }, (_, i) => `word${i}`);
const ulid = (i: number) => `01ARZ3NDEK${String(i).padStart(16, '0')}`;

function doc(rand: () => number): DocTerms {
  const n = 3 + Math.floor(rand() * 12);
  const text = Array.from({ length: n }, () => WORDS[Math.floor(WORDS.length * rand() ** 3)]!).join(' ');
  return docTerms({ content: text, tags: rand() < 0.2 ? [WORDS[Math.floor(rand() * 50)]!] : undefined, createdAt: '2026-01-01T00:00:00.000Z' });
}

function query(rand: () => number): string {
  const q = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => WORDS[Math.floor(WORDS.length * rand() ** 2)]!);
  return rand() < 0.2 ? `${q.join(' ')} wo*` : q.join(' ');
}

function roundTrip(index: ResidentIndex): ResidentIndex {
  const file = Buffer.concat(encodeImage(index.snapshot()));
  return ResidentIndex.restore(decodeImage(file));
}

describe('index images', () => {
  test('a restored index answers as the original, through later changes on both', () => {
    const rand = random(61);
    const index = new ResidentIndex();
    const oracle = new ReferenceIndex();
    const docs = new Map<string, DocTerms>();
    let next = 0;
    const change = (target: Array<ResidentIndex | ReferenceIndex>) => {
      if (docs.size > 0 && rand() < 0.3) {
        const ids = [...docs.keys()];
        const id = ids[Math.floor(rand() * ids.length)]!;
        for (const t of target) assert.equal(t instanceof ReferenceIndex ? t.remove(id) : t.remove(id, docs.get(id)!), true);
        docs.delete(id);
      } else {
        const id = ulid(next++);
        const d = doc(rand);
        for (const t of target) assert.equal(t.add(id, d), true);
        docs.set(id, d);
      }
    };
    for (let i = 0; i < 6000; i++) change([index, oracle]);
    const restored = roundTrip(index);
    assert.equal(restored.facts, index.facts);
    assert.equal(restored.length, index.length);
    assert.equal(restored.postings, index.postings);
    for (let q = 0; q < 300; q++) {
      const text = query(rand);
      assert.deepEqual(restored.search(analyzeQuery(text), 10), index.search(analyzeQuery(text), 10), text);
    }
    for (let i = 0; i < 3000; i++) {
      change([index, restored, oracle]);
      if (i % 50 === 0) {
        const text = query(rand);
        assert.deepEqual(restored.search(analyzeQuery(text), 10), index.search(analyzeQuery(text), 10), `after ${i} changes: ${text}`);
        assert.deepEqual(restored.search(analyzeQuery(text), 10), oracle.search(analyzeQuery(text), 10));
      }
    }
    // An image of an image, and of an empty index.
    const again = roundTrip(restored);
    assert.deepEqual(again.search(analyzeQuery('word1 word2'), 20), index.search(analyzeQuery('word1 word2'), 20));
    const empty = roundTrip(new ResidentIndex());
    assert.equal(empty.facts, 0);
    assert.equal(empty.add(ulid(1), doc(rand)), true);
    assert.equal(empty.facts, 1);
  });

  test('a torn or damaged image is refused', () => {
    const rand = random(67);
    const index = new ResidentIndex();
    for (let i = 0; i < 500; i++) index.add(ulid(i), doc(rand));
    const file = Buffer.concat(encodeImage(index.snapshot()));
    assert.throws(() => decodeImage(file.subarray(0, file.length - 100)), /checksum|outside|not a memoryd/);
    for (const at of [3, 40, Math.floor(file.length / 2), file.length - 2]) {
      const damaged = Buffer.from(file);
      damaged[at]! ^= 0x10;
      assert.throws(() => decodeImage(damaged), /checksum|not a memoryd/, `byte ${at}`);
      // What the read ahead checks before a search asks (store/level/index-images.ts).
      assert.equal(checksumHolds(damaged), false, `byte ${at}`);
    }
    assert.equal(checksumHolds(file), true);
    assert.equal(checksumHolds(file.subarray(0, file.length - 100)), false);
    assert.equal(checksumHolds(Buffer.alloc(3)), false);
    assert.throws(() => decodeImage(Buffer.alloc(0)), /not a memoryd/);
  });
});
