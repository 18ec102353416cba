// The posting kernel (search/posting-kernel.wat) reads a block as the
// JavaScript reference does, bit for bit: every mode, windows that cut a
// block (and blocks wider than the window, kept decoded), dead facts,
// varints of every width, lengths and frequencies outside the part table,
// with and without a table in its memory. And the committed module is
// what the .wat compiles to.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { prng } from '@memoryd/test-support';
import { newPartTable, part } from '../dist/search/part-table.js';
import { PostingBlocks } from '../dist/search/posting-blocks.js';
import { PostingKernel } from '../dist/search/posting-kernel.js';

const WINDOW = 2048;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('posting kernel', () => {
  test('the committed module is what posting-kernel.wat compiles to', () => {
    // Fails (exit 1, and says how to mend it) when the .wat was edited without regenerating.
    execFileSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: ROOT, stdio: 'pipe', timeout: 60_000 });
  });

  test('reads blocks as the JavaScript reference does, bit for bit', () => {
    const rand = prng(1215);
    const kernel = new PostingKernel(WINDOW);
    let listedSeen = 0;
    let collectedSeen = 0;
    let bestSeen = 0;
    for (let trial = 0; trial < 400; trial++) {
      // One block of up to 128 postings: gaps and frequencies of 1 to 3 varint bytes.
      const count = 1 + Math.floor(rand() * 128);
      const pairs = new Uint32Array(2 * count);
      let ord = Math.floor(rand() * 5000);
      for (let i = 0; i < count; i++) {
        if (i > 0) ord += 1 + (rand() < 0.05 ? Math.floor(rand() * 40_000) : Math.floor(rand() * (rand() < 0.5 ? 4 : 30)));
        pairs[2 * i] = ord;
        pairs[2 * i + 1] = rand() < 0.05 ? 8 + Math.floor(rand() * 70_000) : 1 + Math.floor(rand() * 4);
      }
      const size = ord + 1;
      const lengths = new Uint32Array(size).map(() => 1 + Math.floor(rand() * (rand() < 0.1 ? 400 : 40)));
      const alive = new Uint8Array(size).map(() => (rand() < 0.9 ? 1 : 0));
      const blocks = new PostingBlocks();
      blocks.ensureLists(1);
      blocks.seal(0, pairs, 0, count, lengths);
      kernel.startSearch();
      // A window that holds the block whole, or cuts it.
      const first = pairs[0]!;
      const base = Math.max(0, first - Math.floor(rand() * 3000) + Math.floor(rand() * 3000));
      const hi = base + Math.floor(rand() * WINDOW);
      const weight = 0.1 + rand() * 12;
      const avg = 1 + rand() * 30;
      // The slot's table in the kernel's memory, or one it cannot use (then it computes: the same doubles).
      const inMemory = rand() < 0.5;
      const table = inMemory ? kernel.table(0)! : newPartTable();
      const reference = newPartTable();
      const mode = trial % 4;
      const floor = mode === 0 ? 0 : rand() * weight;
      // The reference: decoded, then each live posting in the window, oldest first.
      const docs = new Uint32Array(128);
      const freqs = new Uint32Array(128);
      blocks.decode(0, docs, freqs);
      const expectedScores = new Float64Array(WINDOW);
      const expectedOffsets: number[] = [];
      const expectedParts: number[] = [];
      kernel.scores.fill(0);
      kernel.isCandidate.fill(0);
      kernel.bestParts.fill(0);
      // Sums already there, some listed already: what the slots before
      // left; or, keeping the best, the parts another list left.
      const sums = mode === 3 ? kernel.bestParts : kernel.scores;
      for (let o = 0; o < WINDOW; o++) {
        if (rand() < 0.3) expectedScores[o] = sums[o] = rand() * weight;
        if (rand() < 0.1) kernel.isCandidate[o] = 1;
      }
      const expectedListed = Uint8Array.from(kernel.isCandidate);
      for (let i = 0; i < count; i++) {
        const d = docs[i]!;
        if (d < base || d > hi || alive[d] === 0) continue;
        const o = d - base;
        const v = part(reference, weight, freqs[i]!, lengths[d]!, avg);
        if (mode === 2) {
          if (v > floor) {
            expectedOffsets.push(o);
            expectedParts.push(v);
          }
          continue;
        }
        if (mode === 3) {
          if (expectedScores[o] === 0) expectedOffsets.push(o);
          if (v > expectedScores[o]!) expectedScores[o] = v;
          continue;
        }
        expectedScores[o]! += v;
        if (mode === 1 && expectedScores[o]! >= floor && expectedListed[o] === 0) {
          expectedListed[o] = 1;
          expectedOffsets.push(o);
        }
      }
      const into = kernel.into({
        scores: mode === 2 ? null : mode === 3 ? kernel.bestParts : kernel.scores,
        listed: mode === 1 ? kernel.isCandidate : null,
        offsets: mode === 2 ? kernel.survivors : mode === 3 ? kernel.bestOffsets : kernel.candidates,
        parts: mode === 2 ? kernel.survivorParts : null,
        best: mode === 3,
      });
      into.floor = floor;
      kernel.aim(base, hi, alive, lengths, table, weight, avg, into);
      const n = kernel.readBlock(blocks, 0, 0);
      const what = `trial ${trial} (mode ${mode}, window ${base}-${hi}, table ${inMemory ? 'in memory' : 'outside'})`;
      assert.equal(n, expectedOffsets.length, what);
      if (mode === 2) {
        // Listed newest first, as a list is read.
        assert.deepEqual([...kernel.survivors.subarray(0, n)], expectedOffsets.reverse(), what);
        assert.deepEqual([...kernel.survivorParts.subarray(0, n)], expectedParts.reverse(), what);
        collectedSeen += n;
      } else if (mode === 3) {
        // In any order (a block wider than the window is read newest first).
        assert.deepEqual([...kernel.bestOffsets.subarray(0, n)].sort((a, b) => a - b), expectedOffsets.sort((a, b) => a - b), what);
        assert.deepEqual([...kernel.bestParts], [...expectedScores], what);
        bestSeen += n;
      } else {
        assert.deepEqual([...kernel.scores], [...expectedScores], what);
        if (mode === 1) {
          assert.deepEqual([...kernel.candidates.subarray(0, n)].sort((a, b) => a - b), expectedOffsets.sort((a, b) => a - b), what);
          assert.deepEqual([...kernel.isCandidate], [...expectedListed], what);
          listedSeen += n;
        }
      }
    }
    // The modes were exercised, not passed by empty windows.
    assert.ok(listedSeen > 200 && collectedSeen > 200 && bestSeen > 200, `listed ${listedSeen}, collected ${collectedSeen}, kept best ${bestSeen}`);
  });

  test('reads a list\'s blocks copied together, and never bytes copied for an earlier search', () => {
    // Three blocks of one list, one after the other (as a load seals
    // them): read newest first, the older ones come from the copy made
    // for the newest. Then the bytes change in place, and the next search
    // reads what they are now.
    const kernel = new PostingKernel(WINDOW);
    const blocks = new PostingBlocks();
    blocks.ensureLists(1);
    const lengths = new Uint32Array(WINDOW).fill(5);
    const alive = new Uint8Array(WINDOW).fill(1);
    const pairs = new Uint32Array(2 * 3 * 128);
    for (let i = 0; i < 3 * 128; i++) {
      pairs[2 * i] = 4 * i;
      pairs[2 * i + 1] = 1 + (i % 3);
    }
    for (let b = 0; b < 3; b++) blocks.seal(0, pairs, 128 * b, 128, lengths);
    const table = kernel.table(0)!;
    const into = kernel.into({ scores: kernel.bestParts, listed: null, offsets: kernel.bestOffsets, parts: null, best: true });
    const read = (): number[] => {
      kernel.startSearch();
      kernel.bestParts.fill(0);
      let n = 0;
      kernel.aim(0, WINDOW - 1, alive, lengths, table, 1, 5, into);
      for (let b = 2; b >= 0; b--) n = kernel.readBlock(blocks, b, n);
      return [...kernel.bestOffsets.subarray(0, n)].map((o) => kernel.bestParts[o]!);
    };
    const before = read();
    assert.equal(before.length, 3 * 128);
    // Every frequency of the oldest block (its second varint of each pair) becomes 7.
    const first = blocks.off[0]!;
    for (let i = 0; i < 128; i++) blocks.bytes[first + 2 * i + 1] = 7;
    const after = read();
    const part7 = after[after.length - 1]!;
    assert.ok(part7 > Math.max(...before), 'the oldest block was read as it is now');
    assert.deepEqual(after.slice(0, 256), before.slice(0, 256));
  });

  test('refuses to write arrays outside its memory', () => {
    const kernel = new PostingKernel(WINDOW);
    assert.throws(() => kernel.into({ scores: new Float64Array(WINDOW), listed: null, offsets: kernel.candidates, parts: null, best: false }), /its own memory/);
    assert.throws(() => kernel.into({ scores: kernel.scores, listed: null, offsets: new Uint32Array(WINDOW), parts: null, best: false }), /its own memory/);
    assert.throws(() => kernel.into({ scores: kernel.scores, listed: null, offsets: kernel.candidates, parts: kernel.survivorParts, best: false }), /a way of reading/);
  });
});
