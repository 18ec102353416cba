// `npm run bench:quality -- --sweep` (issue 38): the fused search judged
// across the range of models users bring, weak to strong, with cosines
// spread around 0 (MiniLM, OpenAI) or crowded near 0.7 (bge), as ADR 0036
// does where no real model can run. Each row is an embedder: the two
// in-process fakes (GloVe averages, GloVe beside WordNet concepts) at the
// weak end, then @memoryd/test-support's simulatedEmbedder at each signal
// share on each scale. A row gives recall@5 of the lexical search (the
// same for every row of a set, so measured once), of the vector ranking
// alone (evaluateVectorOnly), of the daemon's fused search (evaluate, a
// fresh store per row), and, with a baseline build, of that build's fused
// search. Each set ends with a verdict on the issue's bar.

import { simulatedEmbedder } from '@memoryd/test-support';
import { RECALL_AT, evaluate, evaluateVectorOnly, loadSet } from './evaluate.mjs';

/** Signal shares swept unless told: noise, through what the fakes reach, to a strong model. */
export const SWEEP_STRENGTHS = [0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.3, 0.95];
/** The cosine scales: unrelated texts near 0 (common 0) or near 0.7 (common 1.53). */
export const SWEEP_SCALES = [
  { scale: 'spread', common: 0 },
  { scale: 'narrow', common: 1.53 },
];
/** The in-process fakes that open each set's table, as the weak end. */
export const SWEEP_FAKES = ['glove', 'concepts'];
/** The bar (issue 38): fused ≥ max(lexical, vector-only) − this, at every strength on both scales… */
export const BAR_BELOW_BEST = 0.03;
/** …and, where the embedder is noise (signal 0), fused ≥ lexical − this. */
export const BAR_BELOW_LEXICAL_AT_NOISE = 0.01;
/** Float slack in the comparisons: recalls are means of fractions. */
const EPSILON = 1e-9;

/** @typedef {{queries: number, recallAt5: number, recallAt10: number, mrr: number, byKind: Record<string, {queries: number, recallAt5: number, recallAt10: number, mrr: number}>}} Summary */

/**
 * A result without its per-query details: the sweep keeps summaries only.
 * @param {Summary & {details?: unknown}} r
 * @returns {Summary}
 */
const summary = ({ queries, recallAt5, recallAt10, mrr, byKind }) => ({ queries, recallAt5, recallAt10, mrr, byKind });

/**
 * Why a row misses the bar, or undefined when it holds.
 * @param {{signal: number | null, lexical: number, vector: number, fused: number}} r recall@5s
 */
export function missesBar(r) {
  const best = Math.max(r.lexical, r.vector);
  if (r.fused < best - BAR_BELOW_BEST - EPSILON) return `fused ${fmt(r.fused)} < max(lexical, vector-only) ${fmt(best)} − ${BAR_BELOW_BEST}`;
  if (r.signal === 0 && r.fused < r.lexical - BAR_BELOW_LEXICAL_AT_NOISE - EPSILON) {
    return `fused ${fmt(r.fused)} < lexical ${fmt(r.lexical)} − ${BAR_BELOW_LEXICAL_AT_NOISE} at noise`;
  }
  return undefined;
}

/** @param {number} x */
const fmt = (x) => x.toFixed(3);
/** @param {number} x */
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/**
 * Sweeps one relevance set.
 * @param {{
 *   setPath: string,
 *   strengths?: readonly number[],
 *   baseline?: typeof import('@memoryd/daemon'),
 *   fakeEmbedder: (kind: string) => Promise<import('@memoryd/daemon').Embedder>,
 *   progress?: (line: string) => void,
 * }} options `baseline`: another build's daemon module, whose fused search
 *   is scored beside this one's; `fakeEmbedder`: opens `glove` or `concepts`.
 */
export async function sweepSet(options) {
  const { setPath, baseline, fakeEmbedder } = options;
  const strengths = options.strengths ?? SWEEP_STRENGTHS;
  const progress = options.progress ?? (() => {});
  const name = setPath.split('/').pop() ?? setPath;
  const set = await loadSet(setPath);
  const started = performance.now();
  const lexical = await evaluate({ setPath });
  const baselineLexical = baseline === undefined ? undefined : await evaluate({ setPath, daemon: baseline });
  progress(`${name}: lexical recall@${RECALL_AT} ${fmt(lexical.recallAt5)}${baselineLexical ? ` (baseline ${fmt(baselineLexical.recallAt5)})` : ''}`);

  /** @type {Array<{scale: string, model: string, signal: number | null, common: number | null, open: () => Promise<import('@memoryd/daemon').Embedder>}>} */
  const plan = [
    ...SWEEP_FAKES.map((kind) => ({ scale: 'fake', model: kind, signal: null, common: null, open: () => fakeEmbedder(kind) })),
    ...SWEEP_SCALES.flatMap(({ scale, common }) =>
      strengths.map((signal) => ({ scale, model: 'simulated', signal, common, open: async () => simulatedEmbedder({ set, signal, common }) })),
    ),
  ];
  const rows = [];
  for (const [i, step] of plan.entries()) {
    const t = performance.now();
    const embedder = await step.open();
    const vector = await evaluateVectorOnly({ setPath, embedder });
    const fused = await evaluate({ setPath, embedder });
    const base = baseline === undefined ? undefined : await evaluate({ setPath, embedder, daemon: baseline });
    const row = {
      scale: step.scale,
      model: step.model === 'simulated' ? embedder.model : step.model,
      signal: step.signal,
      common: step.common,
      lexical: summary(lexical),
      vector: summary(vector),
      fused: summary(fused),
      gap: fused.recallAt5 - Math.max(lexical.recallAt5, vector.recallAt5),
      ...(base === undefined ? {} : { baseline: summary(base) }),
    };
    rows.push(row);
    progress(
      `${name}: ${rowLabel(row)} (${i + 1}/${plan.length}): vector ${fmt(vector.recallAt5)}, fused ${fmt(fused.recallAt5)}` +
        `${base === undefined ? '' : `, baseline ${fmt(base.recallAt5)}`} [${((performance.now() - t) / 1000).toFixed(1)} s]`,
    );
  }
  const judge = (which) =>
    rows
      .map((r) => ({ r, why: missesBar({ signal: r.signal, lexical: r.lexical.recallAt5, vector: r.vector.recallAt5, fused: r[which].recallAt5 }) }))
      .filter((m) => m.why !== undefined)
      .map(({ r, why }) => ({ scale: r.scale, model: r.model, signal: r.signal, why }));
  const misses = judge('fused');
  const baselineMisses = baseline === undefined ? undefined : judge('baseline');
  progress(`${name}: ${rows.length} rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return {
    set: setPath,
    facts: lexical.facts,
    agents: lexical.agents,
    queries: lexical.queries,
    lexical: summary(lexical),
    ...(baselineLexical === undefined ? {} : { baselineLexical: summary(baselineLexical) }),
    strengths: [...strengths],
    rows,
    verdict: verdict(misses, strengths),
    ...(baselineMisses === undefined ? {} : { baselineVerdict: verdict(baselineMisses, strengths) }),
  };
}

/**
 * The bar's verdict over the simulated rows (the issue's bar is on them);
 * the fakes' misses are listed apart, for information.
 * @param {Array<{scale: string, model: string, signal: number | null, why: string}>} misses
 * @param {readonly number[]} strengths
 */
function verdict(misses, strengths) {
  const simulated = misses.filter((m) => m.scale !== 'fake');
  return { holds: simulated.length === 0, noiseChecked: strengths.includes(0), misses: simulated, fakeMisses: misses.filter((m) => m.scale === 'fake') };
}

/** @param {{scale: string, model: string, signal: number | null}} r */
function rowLabel(r) {
  return r.signal === null ? `${r.scale} ${r.model}` : `${r.scale} s=${r.signal}`;
}

/**
 * One set's table, fixed-width, and its verdict.
 * @param {Awaited<ReturnType<typeof sweepSet>>} s
 */
export function formatSweep(s) {
  const withBase = s.baselineLexical !== undefined;
  const name = s.set.split('/').pop();
  const lines = [
    `${name}: ${s.facts} facts, ${s.agents} agents, ${s.queries} queries; recall@${RECALL_AT}, lexical ${fmt(s.lexical.recallAt5)}` +
      (withBase ? ` (baseline's ${fmt(/** @type {Summary} */ (s.baselineLexical).recallAt5)})` : ''),
  ];
  const cols = [
    ['scale', 7, 'l'],
    ['embedder', 22, 'l'],
    ['signal', 7, 'r'],
    ['lexical', 8, 'r'],
    ['vector', 8, 'r'],
    ['fused', 8, 'r'],
    ['gap', 8, 'r'],
    ...(withBase ? [['baseline', 9, 'r'], ['fused−base', 11, 'r']] : []),
    ['', 5, 'l'],
  ];
  const line = (cells) => cols.map(([, w, align], i) => (align === 'l' ? String(cells[i]).padEnd(w) : String(cells[i]).padStart(w))).join(' ').trimEnd();
  lines.push(line(cols.map(([h]) => h)));
  for (const r of s.rows) {
    const miss = missesBar({ signal: r.signal, lexical: r.lexical.recallAt5, vector: r.vector.recallAt5, fused: r.fused.recallAt5 }) !== undefined;
    lines.push(
      line([
        r.scale,
        r.model,
        r.signal === null ? '-' : String(r.signal),
        fmt(r.lexical.recallAt5),
        fmt(r.vector.recallAt5),
        fmt(r.fused.recallAt5),
        signed(r.gap),
        ...(withBase ? [fmt(r.baseline.recallAt5), signed(r.fused.recallAt5 - r.baseline.recallAt5)] : []),
        miss ? '  <' : '',
      ]),
    );
  }
  lines.push(formatVerdict('verdict', s.verdict));
  if (s.baselineVerdict !== undefined) lines.push(formatVerdict("the baseline's, same bar", s.baselineVerdict));
  return lines.join('\n');
}

/**
 * @param {string} label
 * @param {ReturnType<typeof verdict>} v
 */
function formatVerdict(label, v) {
  const bar = `fused ≥ max(lexical, vector-only) − ${BAR_BELOW_BEST} at every strength on both scales` +
    (v.noiseChecked ? `, and fused ≥ lexical − ${BAR_BELOW_LEXICAL_AT_NOISE} at signal 0` : ' (signal 0 not swept: the noise end unchecked)');
  const lines = [`${label}: ${v.holds ? 'holds' : `MISSES in ${v.misses.length} rows`}: ${bar}`];
  for (const m of v.misses) lines.push(`  ${rowLabel(m)}: ${m.why}`);
  if (v.fakeMisses.length > 0) lines.push(`  (outside the bar) ${v.fakeMisses.map((m) => `${rowLabel(m)}: ${m.why}`).join('; ')}`);
  return lines.join('\n');
}
