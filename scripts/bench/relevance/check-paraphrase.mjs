// Checks the paraphrase relevance set (@memoryd/test-support's fixtures/relevance/paraphrase.json):
// no query may share a term with any fact it judges relevant, after
// memoryd's own analysis (the daemon's analyzeQuery for the query, its
// docTerms for the fact's content and tags: stemming, stop words,
// identifier parts), so word matching alone cannot find a relevant fact
// and the set measures meaning search only. Exits 1 listing each offender.
//
// Then, for information, how far meaning alone goes: each agent's facts
// ranked by the cosine of a fake embedder's vectors, scored as
// evaluate.mjs scores memoryd (recall@5 and MRR), on the checked set and
// on set.json and conversations.json, so a figure is not one set's
// accident. The fake embedders, all from @memoryd/test-support:
//   glove     averaged GloVe word vectors (meaningVector, what the tests serve)
//   concepts  WordNet concepts, feature-hashed into 384 dims (conceptVector)
//   fused     SIF-weighted GloVe less its common directions, beside the
//             WordNet concepts, 384 dims (conceptGloveVector)
//   node scripts/bench/relevance/check-paraphrase.mjs [--set FILE] [--misses [glove|concepts|fused]]
// --misses lists the checked set's misses of one embedder (glove unless named).
// Needs built daemon and test-support packages (npm run build).

import { analyzeQuery, docTerms } from '@memoryd/daemon/search';
import { loadGlove, meaningVector } from '@memoryd/test-support';
import { conceptGloveVector, conceptVector, loadConcepts } from './concept-embedder.mjs';
import { CONVERSATIONS_SET_PATH, DEFAULT_SET_PATH, PARAPHRASE_SET_PATH, RECALL_AT, SEARCH_LIMIT, loadSet, scoreRanking } from './evaluate.mjs';

/** The fake embedders compared, by name: text → unit vector. */
const EMBEDDERS = {
  glove: (text) => meaningVector(text),
  concepts: (text) => conceptVector(text),
  fused: (text) => conceptGloveVector(text),
};

/**
 * The terms a query shares with a fact, as the index would match them.
 * @param {string} query
 * @param {{content: string, tags?: string[]}} fact
 */
function sharedTerms(query, fact) {
  const doc = docTerms(fact.content, fact.tags);
  return analyzeQuery(query).terms.filter((t) => doc.terms.has(t));
}

/** @param {readonly number[]} a @param {readonly number[]} b unit vectors */
function cosine(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Every query's facts ranked by cosine among its agent's facts, best first.
 * @param {{facts: Array<{key: string, agentId: string, content: string}>, queries: Array<{agentId: string, query: string}>}} set
 * @param {(text: string) => number[]} embed
 */
function rankings(set, embed) {
  const vectors = new Map(set.facts.map((f) => [f.key, embed(f.content)]));
  return set.queries.map((q) => {
    const v = embed(q.query);
    return set.facts
      .filter((f) => f.agentId === q.agentId)
      .map((f) => ({ key: f.key, score: cosine(v, /** @type {number[]} */ (vectors.get(f.key))) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_LIMIT)
      .map((r) => r.key);
  });
}

/** @param {number[]} xs */
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Each query scored against each embedder's ranking.
 * @param {Awaited<ReturnType<typeof loadSet>>} set
 */
function scoreAll(set) {
  return Object.fromEntries(
    Object.entries(EMBEDDERS).map(([name, embed]) => {
      const ranked = rankings(set, embed);
      return [name, set.queries.map((q, i) => ({ q, got: ranked[i], ...scoreRanking(ranked[i], q.relevant) }))];
    }),
  );
}

/** @param {Array<{recallAt5: number, reciprocalRank: number}>} rows */
const summary = (rows) => `recall@${RECALL_AT} ${mean(rows.map((r) => r.recallAt5)).toFixed(3)}, MRR ${mean(rows.map((r) => r.reciprocalRank)).toFixed(3)}`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { setPath: PARAPHRASE_SET_PATH, misses: /** @type {string | undefined} */ (undefined) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--misses') opts.misses = argv[i + 1] in EMBEDDERS ? argv[++i] : 'glove';
    else if (a === '--set' && argv[i + 1] !== undefined) opts.setPath = argv[++i];
    else throw new Error(`usage: check-paraphrase.mjs [--set FILE] [--misses [${Object.keys(EMBEDDERS).join('|')}]] (got ${a})`);
  }
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const set = await loadSet(opts.setPath);
  const facts = new Map(set.facts.map((f) => [f.key, f]));
  const offenders = [];
  for (const q of set.queries) {
    if (q.kind !== 'paraphrase') offenders.push(`${q.id}: kind ${JSON.stringify(q.kind)}, not paraphrase`);
    if (analyzeQuery(q.query).terms.length === 0) offenders.push(`${q.id}: ${JSON.stringify(q.query)} has no term at all`);
    for (const key of q.relevant) {
      const shared = sharedTerms(q.query, facts.get(key));
      if (shared.length > 0) offenders.push(`${q.id} ${JSON.stringify(q.query)} shares ${shared.join(', ')} with ${key}: ${facts.get(key).content}`);
    }
  }
  const perAgent = new Map();
  for (const f of set.facts) perAgent.set(f.agentId, (perAgent.get(f.agentId) ?? 0) + 1);
  console.log(`${set.facts.length} facts (${[...perAgent].map(([a, n]) => `${a} ${n}`).join(', ')}), ${set.queries.length} queries`);

  const started = performance.now();
  await Promise.all([loadConcepts(), loadGlove()]);
  console.log(`fake embedders loaded in ${Math.round(performance.now() - started)} ms; vector-only ranking of each agent's facts:`);
  const scored = scoreAll(set);
  for (const [name, rows] of Object.entries(scored)) console.log(`  ${name.padEnd(8)} ${summary(rows)}`);
  for (const agent of perAgent.keys()) {
    const mine = (rows) => rows.filter((r) => r.q.agentId === agent).map((r) => r.recallAt5);
    const line = Object.entries(scored).map(([name, rows]) => `${name} ${mean(mine(rows)).toFixed(3)}`).join(', ');
    console.log(`    ${agent}: recall@${RECALL_AT} ${line} over ${mine(scored.glove).length} queries`);
  }
  for (const otherPath of [DEFAULT_SET_PATH, CONVERSATIONS_SET_PATH]) {
    if (otherPath === opts.setPath) continue;
    const other = await loadSet(otherPath);
    console.log(`${otherPath.split('/').at(-1)}: ${other.facts.length} facts, ${other.queries.length} queries`);
    for (const [name, rows] of Object.entries(scoreAll(other))) console.log(`  ${name.padEnd(8)} ${summary(rows)}`);
  }
  if (opts.misses !== undefined) {
    for (const r of scored[opts.misses].filter((x) => x.recallAt5 < 1)) {
      console.log(`miss (${opts.misses}) ${r.q.id} ${JSON.stringify(r.q.query)} wants ${r.q.relevant.join(',')}; top 3:`);
      for (const key of r.got.slice(0, 3)) console.log(`    ${key} ${facts.get(key).content}`);
    }
  }

  if (offenders.length > 0) {
    console.error(`\n${offenders.length} queries share a term with a fact they judge relevant:`);
    for (const o of offenders) console.error(`  ${o}`);
    process.exitCode = 1;
  } else {
    console.log('no query shares a term with its relevant facts');
  }
}

await main();
