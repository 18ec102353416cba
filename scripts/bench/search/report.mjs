// bench:search's text report: per run and scale, the seeding, the searches
// after seeding and the first searches after a restart, each memoryd's
// figures beside the peer's (FTS5) and the floor's (echo) as ratios, by
// class of query too; A/B ratios between memoryd builds or variants; and,
// over several runs, the median of every ratio. No bar in it is an
// absolute time: this machine's times say little about a user's.

import { formatTable } from '../stats.mjs';
import { CLASSES } from './run-scale.mjs';

const MB = 1e6;
const fixed = (v, digits) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits));
const int = (v) => (v === undefined || Number.isNaN(v) ? '-' : Math.round(v).toLocaleString('en-US'));

/** The rows of a scale by kind. @param {any} scale */
function roles(scale) {
  const memoryds = scale.servers.filter((s) => s.kind === 'memoryd');
  return { memoryds, peer: scale.servers.find((s) => s.kind === 'fts5'), floor: scale.servers.find((s) => s.kind === 'echo') };
}

/**
 * Every ratio of one scale the report names, per memoryd: to the peer and
 * the floor at p50 and p99 (after seeding, after the restart), the seeding
 * rate to the peer's, and A/B to the first memoryd.
 * @param {any} scale
 */
export function ratiosOf(scale) {
  const { memoryds, peer, floor } = roles(scale);
  const reference = memoryds[0];
  const of = (s, other, phase, p) => (other === undefined ? NaN : s[phase].all[p] / other[phase].all[p]);
  return memoryds.map((s) => ({
    label: s.label,
    seedRate: peer?.seed === undefined || s.seed === undefined ? NaN : s.seed.factsPerSecond / peer.seed.factsPerSecond,
    rssAfterSeedMb: s.rss.afterSeed / MB,
    rssAfterRestartMb: s.rss.afterRestart / MB,
    ...Object.fromEntries(
      ['search', 'restart'].flatMap((phase) =>
        ['p50Ms', 'p99Ms'].flatMap((p) => {
          const tag = `${phase}${p.slice(0, 3).toUpperCase()}`;
          return [
            [`${tag}Peer`, of(s, peer, phase, p)],
            [`${tag}Floor`, of(s, floor, phase, p)],
            [`${tag}Ref`, s === reference ? NaN : of(s, reference, phase, p)],
          ];
        }),
      ),
    ),
  }));
}

/**
 * bench:search --filters: per memoryd and filter, its filtered p99 ÷ its
 * own unfiltered p99 (the same queries, interleaved in one pass) and ÷
 * FTS5's filtered p99.
 * @param {any} scale
 */
export function filterRatiosOf(scale) {
  const { memoryds, peer } = roles(scale);
  return memoryds.flatMap((s) =>
    Object.entries(s.filters ?? {}).filter(([name]) => name !== 'none').map(([name, f]) => ({
      label: s.label,
      filter: name,
      p99Unfiltered: f.p99Ms / s.filters.none.p99Ms,
      p50Unfiltered: f.p50Ms / s.filters.none.p50Ms,
      p99Peer: peer?.filters?.[name] === undefined ? NaN : f.p99Ms / peer.filters[name].p99Ms,
    })),
  );
}

/** The filtered searches of a scale, when it timed them. @param {any} scale */
function filterTables(scale) {
  const { peer } = roles(scale);
  const timed = scale.servers.filter((s) => s.filters !== undefined);
  if (timed.length === 0) return [];
  const names = Object.keys(timed[0].filters);
  return [
    '',
    'filtered searches (the same queries, unfiltered and under each filter, every (server, filter) pair interleaved in one pass; ÷unfiltered: the same server\'s "none" of this pass):',
    formatTable(
      ['filter', 'server', 'p50 ms', 'p99 ms', '÷unfiltered p50', '÷unfiltered p99', '÷fts5 p99', 'found facts'],
      names.flatMap((name) =>
        timed.map((s) => {
          const f = s.filters[name];
          return [
            name, s.label, fixed(f.p50Ms, 3), fixed(f.p99Ms, 3), fixed(f.p50Ms / s.filters.none.p50Ms, 3), fixed(f.p99Ms / s.filters.none.p99Ms, 3),
            fixed(s === peer || peer?.filters?.[name] === undefined ? NaN : f.p99Ms / peer.filters[name].p99Ms, 3), `${Math.round(100 * f.withFacts)}%`,
          ];
        }),
      ),
    ),
    ...names.map((name) => `  ${name}: ${timed[0].filters[name].about}`),
  ];
}

/** Ratio columns of a row against the peer and the floor. @param {any} fig @param {any} peer @param {any} floor */
const vs = (fig, peer, floor) => [
  fixed(peer === undefined ? NaN : fig.p50Ms / peer.p50Ms, 3), fixed(peer === undefined ? NaN : fig.p99Ms / peer.p99Ms, 3),
  fixed(floor === undefined ? NaN : fig.p50Ms / floor.p50Ms, 2), fixed(floor === undefined ? NaN : fig.p99Ms / floor.p99Ms, 2),
];

/** The tables of one phase ('search' or 'restart') of a scale. @param {any} scale @param {'search' | 'restart'} phase */
function phaseTables(scale, phase) {
  const { memoryds, peer, floor } = roles(scale);
  const head = ['server', 'p50 ms', 'p99 ms', 'max ms', '÷fts5 p50', '÷fts5 p99', '÷echo p50', '÷echo p99'];
  const overall = formatTable(
    phase === 'restart' ? ['server', 'first ms', ...head.slice(1)] : head,
    scale.servers.map((s) => [
      s.label, ...(phase === 'restart' ? [fixed(s.restart.firstMs, 2)] : []), fixed(s[phase].all.p50Ms, 3), fixed(s[phase].all.p99Ms, 3), fixed(s[phase].all.maxMs, 1),
      ...vs(s[phase].all, peer?.[phase].all, floor?.[phase].all),
    ]),
  );
  const byClass = formatTable(
    ['class', 'queries', 'server', 'p50 ms', 'p99 ms', '÷fts5 p50', '÷fts5 p99', '÷echo p50', '÷echo p99'],
    CLASSES.flatMap((c) =>
      [...memoryds, ...(peer ? [peer] : [])].map((s) => [
        `${c.name} (${c.about})`, s[phase].byClass[c.name].count, s.label, fixed(s[phase].byClass[c.name].p50Ms, 3), fixed(s[phase].byClass[c.name].p99Ms, 3),
        ...vs(s[phase].byClass[c.name], peer?.[phase].byClass[c.name], floor?.[phase].byClass[c.name]),
      ]),
    ),
  );
  return [overall, '', 'by class of query (the share of the agent\'s facts holding its most common word):', byClass];
}

/** The report of one scale of one run. @param {any} scale */
function scaleReport(scale) {
  const { memoryds, peer } = roles(scale);
  const out = [
    `${scale.scale}: ${int(scale.facts)} facts (searched agent: ${int(scale.searchedFacts)}); ${scale.queries} queries after seeding, the first ${scale.restartQueries} after the restart`,
    '',
    'seeding (admin.import, 1,000 records a call) and RSS:',
    formatTable(
      ['server', 'seed s', 'facts/s', '÷fts5 rate', 'RSS seeded MB', 'RSS searched MB', 'RSS restarted MB'],
      scale.servers.map((s) => [
        s.label, fixed(s.seed ? s.seed.ms / 1000 : NaN, 1), int(s.seed?.factsPerSecond), fixed(s.seed && peer?.seed ? s.seed.factsPerSecond / peer.seed.factsPerSecond : NaN, 3),
        fixed(s.rss.afterSeed / MB, 1), fixed(s.rss.afterSearch / MB, 1), fixed(s.rss.afterRestart / MB, 1),
      ]),
    ),
    '',
    'searches after seeding (interleaved, one in flight, every search from the first):',
    ...phaseTables(scale, 'search'),
    ...filterTables(scale),
    '',
    `the first ${scale.restartQueries} searches after every server was restarted (from its first request):`,
    ...phaseTables(scale, 'restart'),
  ];
  if (memoryds.length > 1) {
    out.push('', `A/B: each memoryd's p50 and p99 ÷ ${memoryds[0].label}'s (below 1: faster than ${memoryds[0].label}):`);
    out.push(formatTable(
      ['server', 'seeded p50', 'seeded p99', 'restart p50', 'restart p99'],
      ratiosOf(scale).slice(1).map((r) => [r.label, fixed(r.searchP50Ref, 3), fixed(r.searchP99Ref, 3), fixed(r.restartP50Ref, 3), fixed(r.restartP99Ref, 3)]),
    ));
  }
  return out.join('\n');
}

/** The median of numbers (NaN left out), with the least and the most. @param {number[]} values */
function spread(values) {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return '-';
  const mid = v.length >> 1;
  const median = v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  const digits = Math.abs(median) >= 10 ? 1 : 3;
  return v.length === 1 ? fixed(median, digits) : `${fixed(median, digits)} (${fixed(v[0], digits)}-${fixed(v[v.length - 1], digits)})`;
}

/**
 * The median over the runs of every ratio, per scale and memoryd.
 * @param {any[]} runs
 */
function summary(runs) {
  const out = [`median over ${runs.length} runs (least-most):`];
  const scales = [...new Set(runs.flatMap((r) => r.scales.map((s) => s.scale)))];
  for (const name of scales) {
    const per = runs.map((r) => ratiosOf(r.scales.find((s) => s.scale === name)));
    const labels = per[0].map((r) => r.label);
    const col = (label, key) => spread(per.map((rs) => rs.find((r) => r.label === label)?.[key] ?? NaN));
    out.push('', `${name}:`, formatTable(
      ['server', 'rate ÷fts5', 'seeded ÷fts5 p50', 'seeded ÷fts5 p99', 'seeded ÷echo p99', 'restart ÷fts5 p99', 'restart ÷echo p99', 'RSS seeded MB', 'RSS restarted MB'],
      labels.map((l) => [l, col(l, 'seedRate'), col(l, 'searchP50Peer'), col(l, 'searchP99Peer'), col(l, 'searchP99Floor'), col(l, 'restartP99Peer'), col(l, 'restartP99Floor'), col(l, 'rssAfterSeedMb'), col(l, 'rssAfterRestartMb')]),
    ));
    const filtered = per.map((run, i) => filterRatiosOf(runs[i].scales.find((s) => s.scale === name)));
    if (filtered[0].length > 0) {
      const fcol = (label, filter, key) => spread(filtered.map((rs) => rs.find((r) => r.label === label && r.filter === filter)?.[key] ?? NaN));
      out.push(formatTable(
        ['filtered', 'server', 'p99 ÷unfiltered', 'p50 ÷unfiltered', 'p99 ÷fts5'],
        filtered[0].map((r) => [r.filter, r.label, fcol(r.label, r.filter, 'p99Unfiltered'), fcol(r.label, r.filter, 'p50Unfiltered'), fcol(r.label, r.filter, 'p99Peer')]),
      ));
    }
    if (labels.length > 1) {
      out.push(formatTable(
        ['A/B ÷ ' + labels[0], 'seeded p50', 'seeded p99', 'restart p50', 'restart p99'],
        labels.slice(1).map((l) => [l, col(l, 'searchP50Ref'), col(l, 'searchP99Ref'), col(l, 'restartP50Ref'), col(l, 'restartP99Ref')]),
      ));
    }
  }
  return out.join('\n');
}

/**
 * The whole text report.
 * @param {{meta: any, runs: Array<{scales: any[]}>}} doc
 */
export function formatReport({ meta, runs }) {
  const out = [
    `bench:search, commit ${meta.commit}, node ${meta.node}, ${meta.cpus} CPU(s); seed ${meta.seed}; limit ${meta.limit}; ${runs.length} run(s)`,
    `servers: ${meta.servers.join('; ')}`,
  ];
  runs.forEach((run, i) => {
    for (const scale of run.scales) out.push('', `== run ${i + 1} of ${runs.length}, ${scaleReportHeader(scale)}`, scaleReport(scale));
  });
  if (runs.length > 1) out.push('', summary(runs));
  return out.join('\n');
}

/** @param {any} scale */
function scaleReportHeader(scale) {
  return `scale ${scale.scale} ==`;
}
