// `npm run bench:quality`: memoryd's search scored on two relevance sets,
// beside an SQLite FTS5 index on the same facts, in one run: our own set
// (scripts/bench/relevance/set.json, one fact per question) and the
// conversational set (conversations.json, six long conversations stored
// turn by turn, make-conversations.mjs). Prints recall@5, recall@10 and
// MRR overall and per query kind for each, then, with --misses, every
// query of memoryd's that missed (a judged fact outside the top 5, or a
// first hit below rank 1) with what came back instead. With --sweep, meaning
// search across simulated models of every strength instead
// (relevance/sweep.mjs).

import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONVERSATIONS_SET_PATH, DEFAULT_SET_PATH, PARAPHRASE_SET_PATH, RECALL_AT, SEARCH_LIMIT, evaluate, loadSet } from './relevance/evaluate.mjs';
import { BAR_BELOW_BEST, BAR_BELOW_LEXICAL_AT_NOISE, SWEEP_SCALES, SWEEP_STRENGTHS, formatSweep, sweepSet } from './relevance/sweep.mjs';

/**
 * A real embedder, as the daemon opens it: `ollama`, `openai` or `local`,
 * configured by the daemon's variables (MEMORYD_EMBED_URL,
 * MEMORYD_EMBED_MODEL, MEMORYD_EMBED_KEY_FILE; the local model's cache in
 * MEMORYD_DATA_DIR or the default data dir).
 */
async function realEmbedder(kind) {
  const { DEFAULT_EMBED_MODELS, DEFAULT_EMBED_URL, createLogger, openEmbedder } = await import('@memoryd/daemon');
  const { defaultDataDir } = await import('@memoryd/protocol');
  const env = process.env;
  const config = { kind, url: env.MEMORYD_EMBED_URL || DEFAULT_EMBED_URL, model: env.MEMORYD_EMBED_MODEL || DEFAULT_EMBED_MODELS[kind], keyFile: env.MEMORYD_EMBED_KEY_FILE || undefined };
  const dataDir = env.MEMORYD_DATA_DIR || defaultDataDir(env, os.platform(), os.homedir());
  return openEmbedder(config, dataDir, createLogger('warn'));
}

/**
 * An embedder in this process whose vectors carry meaning, so the fusion
 * is measured without a model server: `glove`, GloVe word vectors averaged
 * (what the tests serve over HTTP), or `concepts`, GloVe weighted and
 * cleaned beside WordNet concepts (relevance/concept-embedder.mjs's
 * conceptGloveVector, the stronger of the two); or a real one, by
 * {@link realEmbedder}.
 * @param {string} kind
 */
async function fakeEmbedder(kind) {
  if (kind === 'ollama' || kind === 'openai' || kind === 'local') return realEmbedder(kind);
  const support = await import('@memoryd/test-support');
  await support.loadGlove();
  const concepts = kind === 'concepts' ? await import('./relevance/concept-embedder.mjs') : undefined;
  await concepts?.loadConcepts();
  const vector = concepts !== undefined ? (t) => concepts.conceptGloveVector(t, 384) : (t) => support.meaningVector(t);
  return {
    kind: 'ollama', model: kind, space: `ollama:${kind}`, maxBatch: 64,
    embed: async (texts) => texts.map((t) => Float32Array.from(vector(t))),
    close: async () => {},
  };
}

/**
 * --strengths' value: signal shares in [0, 1], comma-separated.
 * @param {string | undefined} text
 */
function parseStrengths(text) {
  const values = (text ?? '').split(',').map((x) => (x.trim() === '' ? Number.NaN : Number(x)));
  if (values.some((x) => !(x >= 0 && x <= 1))) {
    throw usage(`--strengths needs signal shares from 0 to 1, comma-separated, got ${JSON.stringify(text ?? '')}`);
  }
  return values;
}

const HELP = `usage: node scripts/bench/quality.mjs [--set FILE] [--store level|postgres] [--embeddings [KIND]]
       [--misses] [--json]
       node scripts/bench/quality.mjs --sweep [--set FILE] [--strengths S,S,...] [--baseline DIR] [--json]

Scores memory.search on relevance sets: adds every fact of a set, in its
order, to a fresh store (temp dir, removed on exit), runs every query with
limit ${SEARCH_LIMIT}, and prints recall@${RECALL_AT} and recall@${SEARCH_LIMIT} (fraction of the judged
relevant facts in the top ${RECALL_AT} or ${SEARCH_LIMIT}, averaged over queries) and MRR (1/rank
of the first relevant fact, 0 when none is in the top ${SEARCH_LIMIT}), overall and per
query kind, for memoryd and for an SQLite FTS5 index on the same facts
(porter unicode61, the words ORed, bm25: the search bench's peer).

By default both shipped sets: ${DEFAULT_SET_PATH}
and ${CONVERSATIONS_SET_PATH}.

  --set FILE  one relevance set instead
  --misses    also list memoryd's queries that missed: the query, the judged
              facts, and the top 3 returned
  --store KIND  level (default) or postgres: the server the PG* variables name,
              in a schema of its own, dropped at the end (ADR 0027)
  --embeddings [glove|concepts|ollama|openai|local]  also score meaning search
              (docs/embeddings.md), fused as the daemon fuses, and add the
              paraphrase set (${PARAPHRASE_SET_PATH}) to the default sets.
              The embedder: a fake in this process whose vectors carry meaning,
              glove (GloVe averages, the default) or concepts (GloVe cleaned,
              beside WordNet concepts); or a real one as the daemon runs it,
              configured by MEMORYD_EMBED_URL, MEMORYD_EMBED_MODEL and
              MEMORYD_EMBED_KEY_FILE (local: its model cached in the data dir)
  --json      print the results, with every query's ranking, as one JSON document
  --help      this text

--sweep scores meaning search across the models users may bring, weak to
strong (issue 38), simulated in this process (@memoryd/test-support's
simulatedEmbedder: a query's vector points at its judged facts by a share
"signal" of its variance, the rest noise), on two cosine scales: spread
(unrelated texts near 0, as MiniLM or OpenAI models) and narrow (near 0.7,
as bge models; common ${SWEEP_SCALES[1].common}). The GloVe fakes (glove, concepts) open each
table as the weak end. Each row: recall@${RECALL_AT} of the lexical search (the same
in every row), of the vector ranking alone (exact cosines over the
agent's facts), of the daemon's fused search, and the gap fused - max(lexical,
vector-only). Each set ends with a verdict on the bar: fused >= max(lexical,
vector-only) - ${BAR_BELOW_BEST} at every strength on both scales, and fused >= lexical - ${BAR_BELOW_LEXICAL_AT_NOISE}
at signal 0; rows that miss are marked < and named. Progress goes to stderr.
By default the sets ${CONVERSATIONS_SET_PATH.split('/').pop()}, ${PARAPHRASE_SET_PATH.split('/').pop()} and ${DEFAULT_SET_PATH.split('/').pop()}; LevelDB only.

  --strengths S,S,...  the signal shares swept (default ${SWEEP_STRENGTHS.join(',')})
  --baseline DIR  also the fused recall@${RECALL_AT} of the build at DIR (a checkout of
              another commit, with npm ci run in it: DIR/packages/daemon/dist/index.js)
  --json      the sweep as one JSON document: every row's recall@${RECALL_AT}, recall@${SEARCH_LIMIT} and
              MRR, overall and per kind, without per-query rankings

Needs a built daemon package (npm run bench:quality builds first).`;

/** What --embeddings takes: the two fakes, then the daemon's own embedders. */
const EMBEDDERS = ['glove', 'concepts', 'ollama', 'openai', 'local'];

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = {
    json: false,
    help: false,
    misses: false,
    setPaths: undefined,
    store: 'level',
    embeddings: false,
    sweep: false,
    strengths: undefined,
    baseline: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--misses') opts.misses = true;
    else if (arg === '--embeddings') {
      opts.embeddings = EMBEDDERS.includes(argv[i + 1]) ? argv[++i] : 'glove';
    }
    else if (arg === '--sweep') opts.sweep = true;
    else if (arg === '--strengths') opts.strengths = parseStrengths(argv[++i]);
    else if (arg === '--baseline') {
      const value = argv[++i];
      if (value === undefined || value === '') throw usage('--baseline needs a directory');
      opts.baseline = value;
    }
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else if (arg === '--set') {
      const value = argv[++i];
      if (value === undefined || value === '') throw usage('--set needs a file');
      opts.setPaths = [value];
    } else if (arg === '--store') {
      const value = argv[++i];
      if (value !== 'level' && value !== 'postgres') throw usage('--store needs level or postgres');
      opts.store = value;
    } else throw usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (opts.sweep) {
    if (opts.embeddings) throw usage('--sweep chooses its own embedders: drop --embeddings');
    if (opts.misses) throw usage("--misses lists one search's misses: not with --sweep");
    if (opts.store !== 'level') throw usage('--sweep runs on LevelDB only');
  } else {
    if (opts.strengths !== undefined) throw usage('--strengths needs --sweep');
    if (opts.baseline !== undefined) throw usage('--baseline needs --sweep');
  }
  opts.setPaths ??= opts.sweep
    ? [CONVERSATIONS_SET_PATH, PARAPHRASE_SET_PATH, DEFAULT_SET_PATH]
    : opts.embeddings
      ? [DEFAULT_SET_PATH, CONVERSATIONS_SET_PATH, PARAPHRASE_SET_PATH]
      : [DEFAULT_SET_PATH, CONVERSATIONS_SET_PATH];
  return opts;
}

/** @param {string} message */
function usage(message) {
  return Object.assign(new Error(message), { usage: true });
}

/** @param {number} x */
const fmt = (x) => x.toFixed(3);

/**
 * The human-readable report of one set: memoryd and the baseline side by side.
 * @param {string} name
 * @param {Awaited<ReturnType<typeof evaluate>>} r memoryd's
 * @param {Awaited<ReturnType<typeof evaluate>>} base the FTS5 baseline's
 * @param {string} label memoryd's store
 */
function printReport(name, r, base, label, hybrids = []) {
  const lines = [];
  lines.push(`${name}: ${r.facts} facts, ${r.agents} agents, ${r.queries} queries`);
  const width = Math.max(8, ...hybrids.map((h) => h.label.length));
  lines.push(`${'kind'.padEnd(12)} ${'queries'.padStart(7)}  ${'server'.padEnd(8)} ${`recall@${RECALL_AT}`.padStart(9)} ${`recall@${SEARCH_LIMIT}`.padStart(9)} ${'MRR'.padStart(6)}`);
  const row = (kind, n, server, s) =>
    `${kind.padEnd(12)} ${String(n).padStart(7)}  ${server.padEnd(width)} ${fmt(s.recallAt5).padStart(9)} ${fmt(s.recallAt10).padStart(9)} ${fmt(s.mrr).padStart(6)}`;
  lines[1] = lines[1].replace('server'.padEnd(8), 'server'.padEnd(width));
  const more = (kind) => hybrids.map((h) => row('', '', h.label, kind === undefined ? h.result : h.result.byKind[kind]));
  lines.push(row('all', r.queries, label, r), ...more(undefined), row('', '', 'fts5', base));
  for (const [kind, s] of Object.entries(r.byKind)) lines.push(row(kind, s.queries, label, s), ...more(kind), row('', '', 'fts5', base.byKind[kind]));
  lines.push(`memoryd - fts5, recall@${RECALL_AT}: ${((r.recallAt5 - base.recallAt5) * 100).toFixed(1)} points`);
  for (const h of hybrids) lines.push(`${h.label} - memoryd, recall@${RECALL_AT}: ${((h.result.recallAt5 - r.recallAt5) * 100).toFixed(1)} points`);
  return lines.join('\n');
}

/**
 * The queries that missed, with what came back instead.
 * @param {Awaited<ReturnType<typeof evaluate>>} r
 * @param {(key: string) => string} contentOf a fact's text, by its key in the set
 */
function printMisses(r, contentOf) {
  const lines = [];
  const missed = r.details.filter((q) => q.recallAt5 < 1 || q.reciprocalRank < 1);
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
  if (opts.sweep) return sweep(opts);
  const results = [];
  for (const setPath of opts.setPaths) {
    const set = await loadSet(setPath);
    const contents = new Map(set.facts.map((f) => [f.key, f.content]));
    const memoryd = await evaluate({ setPath, store: opts.store });
    const fts5 = await evaluate({ setPath, store: 'fts5' });
    const hybrids = [];
    if (opts.embeddings) {
      const embedder = await fakeEmbedder(opts.embeddings);
      hybrids.push({ label: `+${opts.embeddings}`, result: await evaluate({ setPath, store: opts.store, embedder }) });
    }
    results.push({ set: setPath, memoryd, fts5, hybrids: hybrids.map((h) => ({ embedder: opts.embeddings, ...h.result })) });
    if (opts.json) continue;
    const name = setPath.split('/').pop();
    process.stdout.write(`${printReport(name, memoryd, fts5, opts.store === 'postgres' ? 'postgres' : 'memoryd', hybrids)}\n\n`);
    if (opts.misses) {
      process.stdout.write(`${printMisses(memoryd, (k) => contents.get(k) ?? '(unknown)')}\n\n`);
      for (const h of hybrids) process.stdout.write(`${h.label}:\n${printMisses(h.result, (k) => contents.get(k) ?? '(unknown)')}\n\n`);
    }
  }
  if (opts.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

/**
 * The daemon module of the build at `dir`, for --baseline.
 * @param {string} dir
 * @returns {Promise<typeof import('@memoryd/daemon')>}
 */
async function loadBaseline(dir) {
  const entry = path.resolve(dir, 'packages/daemon/dist/index.js');
  try {
    return await import(pathToFileURL(entry).href);
  } catch (err) {
    throw new Error(`--baseline ${dir}: cannot import ${entry} (a checkout with npm ci run in it?): ${err.message}`, { cause: err });
  }
}

/** --sweep: each set's table, or all of it as JSON. */
async function sweep(opts) {
  const baseline = opts.baseline === undefined ? undefined : await loadBaseline(opts.baseline);
  const progress = (line) => process.stderr.write(`sweep: ${line}\n`);
  const results = [];
  for (const setPath of opts.setPaths) {
    const result = await sweepSet({ setPath, strengths: opts.strengths, baseline, fakeEmbedder, progress });
    results.push(result);
    if (!opts.json) process.stdout.write(`${formatSweep(result)}\n\n`);
  }
  if (opts.json) {
    const doc = { recallAt: RECALL_AT, baseline: opts.baseline === undefined ? null : path.resolve(opts.baseline), sets: results };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`quality: ${err.stack ?? err}\n`);
  process.exit(1);
});
