// `npm run bench:quality`: memoryd's search scored on its own relevance set
// (scripts/bench/relevance/set.json). Prints recall@5 and MRR overall and
// per query kind, then every query that missed (a judged fact outside the
// top 5, or a first hit below rank 1) with what came back instead.

import { DEFAULT_SET_PATH, RECALL_AT, SEARCH_LIMIT, evaluate, loadSet } from './relevance/evaluate.mjs';

const HELP = `usage: node scripts/bench/quality.mjs [--set FILE] [--store level|postgres] [--json]

Scores memory.search on a relevance set: adds every fact of the set to a
fresh store (temp dir, removed on exit), runs every query with limit
${SEARCH_LIMIT}, and prints recall@${RECALL_AT} (fraction of the judged relevant facts in
the top ${RECALL_AT}, averaged over queries) and MRR (1/rank of the first relevant
fact, 0 when none is in the top ${SEARCH_LIMIT}), overall and per query kind, then the
queries that missed: the query, the judged facts, and the top 3 returned.

  --set FILE  the relevance set (default ${DEFAULT_SET_PATH})
  --store KIND  level (default) or postgres: the server the PG* variables name,
              in a schema of its own, dropped at the end (ADR 0027)
  --json      print the results, with every query's ranking, as one JSON document
  --help      this text

Needs a built daemon package (npm run bench:quality builds first).`;

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { json: false, help: false, setPath: DEFAULT_SET_PATH, store: 'level' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--set') {
      const value = argv[++i];
      if (value === undefined || value === '') throw usage('--set needs a file');
      opts.setPath = value;
    } else if (arg === '--store') {
      const value = argv[++i];
      if (value !== 'level' && value !== 'postgres') throw usage('--store needs level or postgres');
      opts.store = value;
    } else throw usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  return opts;
}

/** @param {string} message */
function usage(message) {
  return Object.assign(new Error(message), { usage: true });
}

/** @param {number} x */
const fmt = (x) => x.toFixed(3);

/**
 * The human-readable report.
 * @param {Awaited<ReturnType<typeof evaluate>>} r
 * @param {(key: string) => string} contentOf a fact's text, by its key in the set
 */
function printReport(r, contentOf) {
  const lines = [];
  lines.push(`relevance set: ${r.facts} facts, ${r.agents} agents, ${r.queries} queries`);
  lines.push(`recall@${RECALL_AT}  ${fmt(r.recallAt5)}`);
  lines.push(`MRR       ${fmt(r.mrr)}`);
  lines.push('');
  lines.push(`${'kind'.padEnd(12)} ${'queries'.padStart(7)} ${`recall@${RECALL_AT}`.padStart(9)} ${'MRR'.padStart(6)}`);
  for (const [kind, s] of Object.entries(r.byKind)) {
    lines.push(`${kind.padEnd(12)} ${String(s.queries).padStart(7)} ${fmt(s.recallAt5).padStart(9)} ${fmt(s.mrr).padStart(6)}`);
  }
  const missed = r.details.filter((q) => q.recallAt5 < 1 || q.reciprocalRank < 1);
  lines.push('');
  lines.push(missed.length === 0 ? 'no query missed' : `queries that missed (${missed.length}):`);
  for (const q of missed) {
    lines.push(`  ${q.id} [${q.kind}] ${q.agentId}: ${JSON.stringify(q.query)}  recall@${RECALL_AT} ${fmt(q.recallAt5)}, RR ${fmt(q.reciprocalRank)}`);
    lines.push(`    expected: ${q.expected.map((k) => `${k} ${JSON.stringify(contentOf(k))}`).join('; ')}`);
    const top = q.got.slice(0, 3);
    lines.push(`    got:      ${top.length === 0 ? '(nothing)' : top.map((k) => `${k} ${JSON.stringify(contentOf(k))}`).join('; ')}`);
  }
  return lines.join('\n');
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`quality: ${err.message}\n\n${HELP}\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const set = await loadSet(opts.setPath);
  const contents = new Map(set.facts.map((f) => [f.key, f.content]));
  const result = await evaluate({ setPath: opts.setPath, store: opts.store });
  if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(`${printReport(result, (k) => contents.get(k) ?? '(unknown)')}\n`);
}

main().catch((err) => {
  process.stderr.write(`quality: ${err.stack ?? err}\n`);
  process.exit(1);
});
