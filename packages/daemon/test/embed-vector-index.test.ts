// The vector scan of meaning search (packages/daemon/src/embed/vector-index.ts,
// ADR 0034): the WebAssembly bytes the daemon carries are the kernel's text
// compiled, and the int8 scan ranks as an exact float cosine does, through
// growth, replacement and removal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { VectorIndex } from '@memoryd/daemon';
import { prng } from '@memoryd/test-support';
import { cosine } from './helpers/cosine.js';

interface KernelBuild {
  compileKernel(): Promise<Buffer>;
  kernelModuleText(bytes: Buffer): string;
}

// Compiled to packages/daemon/dist-test/, three levels below the repo root.
const BUILD_URL = new URL('../../../scripts/build-vector-kernel.mjs', import.meta.url);
const GENERATED = new URL('../src/embed/vector-kernel-wasm.ts', import.meta.url);

function randomVector(rand: () => number, dims: number): Float32Array {
  return Float32Array.from({ length: dims }, () => rand() * 2 - 1);
}


describe('the vector kernel', () => {
  it('is the compiled vector-kernel.wat (run scripts/build-vector-kernel.mjs after editing it)', async () => {
    const build = (await import(BUILD_URL.href)) as KernelBuild;
    assert.equal(readFileSync(GENERATED, 'utf8'), build.kernelModuleText(await build.compileKernel()));
  });
});

describe('VectorIndex', () => {
  it('with a filter, gives the k best of the vectors it accepts: its own similarities, filtered, then ranked', () => {
    const rand = prng(17);
    const dims = 48;
    const index = new VectorIndex(dims);
    const ids: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const id = `id${String(Math.floor(rand() * 1e9)).padStart(9, '0')}${i}`;
      index.set(id, randomVector(rand, dims));
      ids.push(id);
    }
    for (const share of [0.002, 0.01, 0.3, 1]) {
      const accepted = new Set(ids.filter(() => rand() < share));
      for (let q = 0; q < 20; q++) {
        const query = randomVector(rand, dims);
        const k = [1, 10, 30][q % 3]!;
        const all = index.similarities(query, ids);
        // Best first; ties: the later id first, as search breaks them.
        const expected = [...all].filter(([id]) => accepted.has(id)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).slice(0, k).map(([id, score]) => ({ id, score }));
        const scan = index.search(query, k, (id) => accepted.has(id));
        assert.deepEqual(scan.hits, expected, `share ${share}, k ${k}`);
        // The distribution stays the agent's: the same as an unfiltered scan's.
        const whole = index.search(query, k);
        assert.deepEqual([scan.count, scan.mean, scan.deviation], [whole.count, whole.mean, whole.deviation]);
      }
    }
  });

  it('ranks as the exact cosine does, within the int8 error, and its similarities are its scores', () => {
    const rand = prng(7);
    const dims = 100; // not a multiple of 16: the rows are padded
    const index = new VectorIndex(dims);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 500; i++) {
      const id = `id${String(i).padStart(4, '0')}`;
      const v = randomVector(rand, dims);
      vectors.set(id, v);
      index.set(id, v); // past the first capacity (64): the rows move as the memory grows
    }
    assert.equal(index.size, 500);
    for (let q = 0; q < 20; q++) {
      const query = randomVector(rand, dims);
      const exact = [...vectors].map(([id, v]) => ({ id, score: cosine(query, v) })).sort((a, b) => b.score - a.score);
      const scan = index.search(query, 10);
      const hits = scan.hits;
      assert.equal(scan.count, 500);
      // The scan's distribution is the exact cosines', within the int8 error.
      const mean = exact.reduce((m, e) => m + e.score, 0) / exact.length;
      const deviation = Math.sqrt(exact.reduce((m, e) => m + (e.score - mean) ** 2, 0) / exact.length);
      assert.ok(Math.abs(scan.mean - mean) < 0.005, `mean ${scan.mean} against ${mean}`);
      assert.ok(Math.abs(scan.deviation - deviation) < 0.005, `deviation ${scan.deviation} against ${deviation}`);
      assert.equal(hits.length, 10);
      for (const h of hits) assert.ok(Math.abs(h.score - cosine(query, vectors.get(h.id)!)) < 0.02, `${h.id}: ${h.score}`);
      // Whatever it returns is within the int8 error of the exact tenth best.
      assert.ok(hits[9]!.score >= exact[9]!.score - 0.02);
      const sims = index.similarities(query, hits.map((h) => h.id));
      for (const h of hits) assert.equal(sims.get(h.id), h.score);
    }
  });

  it('finds a vector itself first, after replacements and removals that move rows', () => {
    const rand = prng(11);
    const index = new VectorIndex(32);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 200; i++) {
      const v = randomVector(rand, 32);
      vectors.set(`f${i}`, v);
      index.set(`f${i}`, v);
    }
    for (let i = 0; i < 200; i += 3) {
      assert.equal(index.delete(`f${i}`), true);
      vectors.delete(`f${i}`);
    }
    assert.equal(index.delete('f0'), false, 'a second delete finds nothing');
    const replaced = randomVector(rand, 32);
    index.set('f1', replaced);
    vectors.set('f1', replaced);
    assert.equal(index.size, vectors.size);
    for (const [id, v] of vectors) {
      assert.ok(index.has(id));
      assert.equal(index.search(v, 1).hits[0]?.id, id, `${id} is its own nearest`);
    }
    for (let i = 0; i < 200; i += 3) assert.equal(index.has(`f${i}`), false);
  });

  it('refuses vectors and queries of other dimensions, and answers nothing for a zero query', () => {
    const index = new VectorIndex(8);
    assert.throws(() => index.set('a', new Float32Array(9)), RangeError);
    index.set('a', Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]));
    assert.throws(() => index.search(new Float32Array(7), 1), RangeError);
    assert.deepEqual(index.search(new Float32Array(8), 1).hits, []);
    assert.throws(() => new VectorIndex(0), RangeError);
  });
});
