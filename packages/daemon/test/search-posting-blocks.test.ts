// PostingBlocks.bound keeps each block's best saturation for the average
// length last asked: it must give the very double frontierBound gives, at
// every average, for every weight, and after a freed block number is
// sealed again with other postings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostingBlocks } from '../dist/search/posting-blocks.js';
import { FRONT, frontierBound } from '../dist/search/score-frontier.js';
import { prng as random } from '@memoryd/test-support';

/** Seals one block of `n` postings of the list from ordinal `from`, frequencies and lengths drawn. */
function sealBlock(blocks: PostingBlocks, list: number, from: number, n: number, lengths: Uint32Array, rand: () => number): void {
  const pairs = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    pairs[2 * i] = from + i;
    pairs[2 * i + 1] = 1 + Math.floor(6 * rand() ** 3);
    lengths[from + i] = 1 + Math.floor(40 * rand());
  }
  blocks.ensureLists(list + 1);
  blocks.seal(list, pairs, 0, n, lengths);
}

/** A seeded draw, empty blocks, and room for the lengths of `facts` ordinals. */
function fresh(seed: number, facts: number): { rand: () => number; blocks: PostingBlocks; lengths: Uint32Array } {
  return { rand: random(seed), blocks: new PostingBlocks(), lengths: new Uint32Array(facts) };
}

function liveBlocks(blocks: PostingBlocks, lists: number): number[] {
  const live: number[] = [];
  for (let l = 0; l < lists; l++) for (let b = blocks.head[l]!; b >= 0; b = blocks.prev[b]!) live.push(b);
  return live;
}

test('a block bound is frontierBound to the bit, at any average and weight, kept or not', () => {
  const { rand, blocks, lengths } = fresh(71, 200_000);
  let ord = 0;
  for (let l = 0; l < 12; l++) for (let k = 0; k < 40; k++, ord += 128) sealBlock(blocks, l, ord, 1 + Math.floor(128 * rand()), lengths, rand);
  const averages = [7.25, 12.5, 7.25, 19.000000000000004, 12.5, 3];
  for (const avg of averages) {
    for (const weight of [0.1, 1, 2.302585092994046, 7.7, 0]) {
      for (const b of liveBlocks(blocks, 12)) {
        assert.equal(Object.is(blocks.bound(b, weight, avg), frontierBound(blocks.front, 2 * FRONT * b, weight, avg)), true, `block ${b}, weight ${weight}, avg ${avg}`);
      }
    }
  }
});

test('a block number freed and sealed again is not bounded by what it held before', () => {
  const { rand, blocks, lengths } = fresh(72, 10_000);
  // One posting of frequency 9 in a 2-word fact: a high bound, kept for avg 10.
  blocks.ensureLists(2);
  lengths[5] = 2;
  blocks.seal(0, new Uint32Array([5, 9]), 0, 1, lengths);
  const b = blocks.head[0]!;
  const high = blocks.bound(b, 1, 10);
  blocks.drop(0);
  // The freed number is taken by the next block sealed: frequency 1 in a 60-word fact.
  lengths[700] = 60;
  blocks.seal(1, new Uint32Array([700, 1]), 0, 1, lengths);
  assert.equal(blocks.head[1], b, 'the freed block number is reused');
  const low = blocks.bound(b, 1, 10);
  assert.equal(low, frontierBound(blocks.front, 2 * FRONT * b, 1, 10));
  assert.ok(low < high);
  // And blocks sealed after the bounds were first asked for (the kept array grows).
  for (let k = 0; k < 600; k++) sealBlock(blocks, 1, 1_000 + 8 * k, 8, lengths, rand);
  for (const c of liveBlocks(blocks, 2)) assert.equal(blocks.bound(c, 1.5, 10), frontierBound(blocks.front, 2 * FRONT * c, 1.5, 10), `block ${c}`);
});

/** A list's postings, block by block from its newest, as [first, last, count, front..., ordinals and frequencies...]. */
function listContents(blocks: PostingBlocks, list: number): number[][] {
  const out: number[][] = [];
  const docs = new Uint32Array(128);
  const freqs = new Uint32Array(128);
  for (let b = blocks.head[list]!; b >= 0; b = blocks.prev[b]!) {
    const n = blocks.decode(b, docs, freqs);
    out.push([blocks.first[b]!, blocks.last[b]!, blocks.count[b]!, ...blocks.front.subarray(2 * FRONT * b, 2 * FRONT * (b + 1)), ...docs.subarray(0, n), ...freqs.subarray(0, n)]);
  }
  return out;
}

test('a snapshot lays each list out oldest first, numbers and bytes, and holds the same blocks', () => {
  const { rand, blocks, lengths } = fresh(73, 400_000);
  const lists = 9;
  // Sealed in turns, as imports into a live index seal them; some lists dropped and sealed again (freed numbers reused).
  const next = new Array<number>(lists).fill(0).map((_, l) => l * 40_000);
  for (let round = 0; round < 30; round++) {
    for (let l = 0; l < lists; l++) {
      if (rand() < 0.3) continue;
      const n = 1 + Math.floor(128 * rand());
      sealBlock(blocks, l, next[l]!, n, lengths, rand);
      next[l]! += n + Math.floor(50 * rand());
    }
    if (round === 12) {
      blocks.drop(3);
      next[3] = 3 * 40_000;
    }
  }
  const want = Array.from({ length: lists }, (_, l) => listContents(blocks, l));
  const snapshot = blocks.snapshot();
  assert.notEqual(snapshot.arrays['bytes']!.buffer, blocks.bytes.buffer, 'blocks sealed in turns are laid out anew');
  const restored = PostingBlocks.restore(snapshot);
  for (let l = 0; l < lists; l++) assert.deepEqual(listContents(restored, l), want[l], `list ${l}`);
  assert.equal(restored.postings, blocks.postings);
  // Each list's blocks are consecutive numbers, oldest first, their bytes in the same order.
  const m = snapshot.meta as { blocks: number; freeBlocks: number[]; garbage: number };
  assert.deepEqual(m.freeBlocks, []);
  assert.equal(m.garbage, 0);
  for (let b = 0; b < m.blocks; b++) {
    assert.ok(restored.prev[b] === -1 || restored.prev[b] === b - 1, `block ${b}'s older one is ${restored.prev[b]}`);
    if (b > 0) assert.ok(restored.off[b]! > restored.off[b - 1]!, `block ${b}'s bytes follow block ${b - 1}'s`);
  }
  // Laid out already: its own snapshot views its arrays, and it goes on as any index does.
  assert.equal(restored.snapshot().arrays['bytes']!.buffer, restored.bytes.buffer);
  sealBlock(restored, 3, next[3]!, 50, lengths, rand);
  sealBlock(blocks, 3, next[3]!, 50, lengths, random(74));
  restored.drop(5);
  blocks.drop(5);
  for (let l = 0; l < lists; l++) {
    const got = listContents(restored, l);
    const had = listContents(blocks, l);
    // The block just sealed drew its own frequencies; the rest are the same.
    assert.deepEqual(got.slice(l === 3 ? 1 : 0), had.slice(l === 3 ? 1 : 0), `list ${l} after more writes`);
  }
});

test('lists sealed in turns keep their blocks in runs of numbers and bytes of their own', () => {
  const { rand, blocks, lengths } = fresh(75, 2_000_000);
  const lists = 6;
  const next = Array.from({ length: lists }, (_, l) => l * 300_000);
  for (let round = 0; round < 60; round++) {
    for (let l = 0; l < lists; l++) {
      sealBlock(blocks, l, next[l]!, 128, lengths, rand);
      next[l]! += 128 + Math.floor(20 * rand());
    }
  }
  for (let l = 0; l < lists; l++) {
    let links = 0;
    let numbered = 0;
    let adjacent = 0;
    for (let b = blocks.head[l]!; blocks.prev[b]! >= 0; b = blocks.prev[b]!) {
      const older = blocks.prev[b]!;
      links++;
      if (older === b - 1) numbered++;
      // Its bytes right after the older block's (at most 10 bytes a posting).
      if (blocks.off[b]! > blocks.off[older]! && blocks.off[b]! - blocks.off[older]! <= 10 * blocks.count[older]!) adjacent++;
    }
    assert.equal(links, 59);
    // Runs of 1, 1, 2, 3, 4, ... numbers, and runs of bytes doubling: a new run now and then.
    assert.ok(numbered >= 45, `list ${l}: ${numbered} of ${links} blocks numbered just after their older one`);
    assert.ok(adjacent >= 50, `list ${l}: ${adjacent} of ${links} blocks stored just after their older one`);
  }
  // What was sealed reads back, and the snapshot lays it out whole.
  const want = Array.from({ length: lists }, (_, l) => listContents(blocks, l));
  const restored = PostingBlocks.restore(blocks.snapshot());
  for (let l = 0; l < lists; l++) assert.deepEqual(listContents(restored, l), want[l], `list ${l}`);
});
