// Checks the paraphrase relevance set (paraphrase.json next to this file):
// no query may share a term with any fact it judges relevant, after
// memoryd's own analysis (the daemon's analyzeQuery for the query, its
// docTerms for the fact's content and tags: stemming, stop words,
// identifier parts), so word matching alone cannot find a relevant fact
// and the set measures meaning search only. Exits 1 listing each offender.
//
// Then, for information, how far meaning alone goes: each agent's facts
// ranked by the cosine of averaged GloVe word vectors (the fake embedder's
// meaningVector from @memoryd/test-support, the vectors the tests serve),
// scored as evaluate.mjs scores memoryd: recall@5 and MRR.
//   node scripts/bench/relevance/check-paraphrase.mjs [--set FILE] [--misses]
// Needs built daemon and test-support packages (npm run build).

import { analyzeQuery, docTerms } from '@memoryd/daemon/search';
import { loadGlove, meaningVector } from '@memoryd/test-support';
import { PARAPHRASE_SET_PATH, RECALL_AT, SEARCH_LIMIT, loadSet, scoreRanking } from './evaluate.mjs';

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
 * Every query's facts ranked by GloVe cosine among its agent's facts, best first.
 * @param {{facts: Array<{key: string, agentId: string, content: string}>, queries: Array<{agentId: string, query: string}>}} set
 */
async function gloveRankings(set) {
  await loadGlove();
  const vectors = new Map(set.facts.map((f) => [f.key, meaningVector(f.content)]));
  return set.queries.map((q) => {
    const v = meaningVector(q.query);
    return set.facts
      .filter((f) => f.agentId === q.agentId)
      .map((f) => ({ key: f.key, score: cosine(v, /** @type {number[]} */ (vectors.get(f.key))) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_LIMIT)
      .map((r) => r.key);
  });
}

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { setPath: PARAPHRASE_SET_PATH, misses: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--misses') opts.misses = true;
    else if (a === '--set' && argv[i + 1] !== undefined) opts.setPath = argv[++i];
    else throw new Error(`usage: check-paraphrase.mjs [--set FILE] [--misses] (got ${a})`);
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

  const rankings = await gloveRankings(set);
  const rows = set.queries.map((q, i) => ({ q, got: rankings[i], ...scoreRanking(rankings[i], q.relevant) }));
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(`GloVe average only: recall@${RECALL_AT} ${mean(rows.map((r) => r.recallAt5)).toFixed(3)}, MRR ${mean(rows.map((r) => r.reciprocalRank)).toFixed(3)}`);
  for (const agent of perAgent.keys()) {
    const mine = rows.filter((r) => r.q.agentId === agent);
    console.log(`  ${agent}: recall@${RECALL_AT} ${mean(mine.map((r) => r.recallAt5)).toFixed(3)} over ${mine.length} queries`);
  }
  if (opts.misses) {
    for (const r of rows.filter((x) => x.recallAt5 < 1)) {
      console.log(`miss ${r.q.id} ${JSON.stringify(r.q.query)} wants ${r.q.relevant.join(',')}; top 3:`);
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
