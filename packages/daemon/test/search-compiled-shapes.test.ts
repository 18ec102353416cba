// The search code must meet one shape of each object and array it is
// compiled for: a shape met after V8 compiled searchWindows throws the
// compiled code away ("wrong map"), and each recompile is ~100 ms of a
// background thread, during which a fresh daemon searches at a fraction
// of its speed (max-score.ts, at `freqs`). Term and prefix slots were two
// shapes; arrays made by map() were of another kind once the caller was
// compiled. A child process runs searches of both kinds under
// --trace-deopt-verbose, and no deoptimization in the search code while
// it searches may give "wrong map" as its reason. (Building the index is
// not judged: on a loaded machine its own code may be compiled before
// the last shape of a dictionary arrives, which costs one recompile at
// start, not one per search. V8 writes the trace to a file it reopens for
// each entry, and the child appends a marker line to the same file once
// the index is built, so the searches' entries are those after it.) (A build that brings a second shape
// back shows it as soon as the code is compiled before the shape comes,
// which these 4,000 searches make all but certain; code with one shape
// cannot show it at all.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { cleanupAll, trackPid, untrackPid, withTimeout } from '@memoryd/test-support';

after(cleanupAll);

const searchModule = import.meta.resolve('@memoryd/daemon/search');

/** Builds a Zipf index of 20,000 facts and searches it: terms of 1-3 words, and prefixes. */
const child = `
const { ResidentIndex, analyzeQuery, docTerms } = await import(${JSON.stringify(searchModule)});
let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const words = Array.from({ length: 2000 }, (_, i) => 'w' + i.toString(36) + 'q');
const cdf = [];
let run = 0;
for (let i = 0; i < words.length; i++) cdf.push((run += 1 / (i + 1)));
const word = () => {
  const u = rand() * run;
  let lo = 0, hi = cdf.length - 1;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (cdf[mid] < u) lo = mid + 1; else hi = mid; }
  return words[lo];
};
const index = new ResidentIndex();
const facts = [];
for (let i = 0; i < 20000; i++) {
  const text = [];
  for (let n = 8 + Math.floor(rand() * 13); n > 0; n--) text.push(word());
  facts.push(text);
  index.add('01ARZ3NDEK' + String(1e10 + i).padStart(16, '0'), docTerms({ content: text.join(' '), createdAt: '2026-01-01T00:00:00.000Z' }));
}
(await import('node:fs')).appendFileSync(process.env.TRACE_FILE, '\\n' + process.env.TRACE_MARKER + '\\n');
for (let q = 0; q < 4000; q++) {
  const text = facts[Math.floor(rand() * facts.length)];
  const n = 1 + Math.floor(rand() * 3);
  const at = Math.floor(rand() * (text.length - n));
  const query = text.slice(at, at + n);
  if (rand() < 0.25) query[n - 1] = query[n - 1].slice(0, 3) + '*';
  index.search(analyzeQuery(query.join(' ')), 10);
}
`;

const MARKER = '=== memoryd: index built, searching ===';

/** Runs the child under --trace-deopt-verbose; the whole trace, with MARKER where building ends. */
async function traced(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memoryd-deopt-'));
  const file = join(dir, 'trace.log');
  try {
    const proc = spawn(
      process.execPath,
      ['--trace-deopt-verbose', '--redirect-code-traces', `--redirect-code-traces-to=${file}`, '--input-type=module', '-e', child],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TRACE_FILE: file, TRACE_MARKER: MARKER } },
    );
    trackPid(proc.pid!);
    const err: Buffer[] = [];
    proc.stderr.on('data', (b: Buffer) => err.push(b));
    const code = await withTimeout(
      new Promise<number | null>((resolve) => proc.on('close', resolve)),
      120_000,
      'the searching child',
    );
    untrackPid(proc.pid!);
    assert.equal(code, 0, `the child failed: ${Buffer.concat(err).toString()}`);
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('search code compiled once', () => {
  test('no "wrong map" deoptimization in the search code over 4,000 searches', async () => {
    const trace = await traced();
    const lines = trace.split('\n');
    const deopts = lines.filter((l) => l.includes('[bailout (kind: deopt'));
    // The trace is there: a run with no deoptimization at all would mean it was not.
    assert.ok(deopts.length > 0, 'no deoptimization traced at all: was --trace-deopt-verbose honoured?');
    const searching = lines.indexOf(MARKER);
    assert.ok(searching >= 0, 'the child never marked the end of building');
    const wrongMap: string[] = [];
    lines.forEach((line, i) => {
      if (i < searching) return;
      if (!line.includes('[bailout (kind: deopt') || !line.includes('reason: wrong map')) return;
      // The position follows the bailout line: ";;; deoptimize at <url:line:col>".
      const at = lines.slice(i + 1, i + 4).find((l) => l.includes(';;; deoptimize at'));
      if (at !== undefined && /\/search\/[^/]+\.js:/.test(at)) wrongMap.push(`${line.trim()}\n  ${at.trim()}`);
    });
    assert.deepEqual(wrongMap, [], `"wrong map" deoptimizations in the search code:\n${wrongMap.join('\n')}`);
  });
});
