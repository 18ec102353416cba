// `npm run bench:quality`: memoryd's search scored on two relevance sets,
// beside an SQLite FTS5 index on the same facts, in one run: our own set
// (scripts/bench/relevance/set.json, one fact per question) and the
// conversational set (conversations.json, six long conversations stored
// turn by turn, make-conversations.mjs). Prints recall@5, recall@10 and
// MRR overall and per query kind for each, then, with --misses, every
// query of memoryd's that missed (a judged fact outside the top 5, or a
// first hit below rank 1) with what came back instead.

import os from 'node:os';
import { DEFAULT_FUSION, FusionMethods } from '@memoryd/daemon';
import { CONVERSATIONS_SET_PATH, DEFAULT_SET_PATH, PARAPHRASE_SET_PATH, RECALL_AT, SEARCH_LIMIT, evaluate, loadSet } from './relevance/evaluate.mjs';

/**
 * An embedder in this process whose vectors carry meaning, so the fusion
 * is measured without a model server: `glove`, GloVe word vectors averaged
 * (what the tests serve over HTTP), or `concepts`, GloVe weighted and
 * cleaned beside WordNet concepts (@memoryd/test-support's
 * conceptGloveVector, the stronger of the two).
 */
/**
 * A real embedder, as the daemon opens it: `ollama`, `openai` or `local`,
 * configured by the daemon's variables (MEMORYD_EMBED_URL,
 * MEMORYD_EMBED_MODEL, MEMORYD_EMBED_KEY_FILE; the local model's cache in
 * MEMORYD_DATA_DIR or the default data dir).
 */
async function realEmbedder(kind) {
  const { DEFAULT_EMBED_MODELS, DEFAULT_EMBED_URL, createLogger, defaultDataDir, openEmbedder } = await import('@memoryd/daemon');
  const env = process.env;
  const config = { kind, url: env.MEMORYD_EMBED_URL || DEFAULT_EMBED_URL, model: env.MEMORYD_EMBED_MODEL || DEFAULT_EMBED_MODELS[kind], keyFile: env.MEMORYD_EMBED_KEY_FILE || undefined };
  const dataDir = env.MEMORYD_DATA_DIR || defaultDataDir(env, os.platform(), os.homedir());
  return openEmbedder(config, dataDir, createLogger('warn'));
}

async function fakeEmbedder(kind) {
  if (kind === 'ollama' || kind === 'openai' || kind === 'local') return realEmbedder(kind);
  const support = await import('@memoryd/test-support');
  await support.loadGlove();
  if (kind === 'concepts') await support.loadConcepts();
  const vector = kind === 'concepts' ? (t) => support.conceptGloveVector(t, 384) : (t) => support.meaningVector(t);
  return {
    kind: 'ollama', model: kind, space: `ollama:${kind}`, maxBatch: 64,
    embed: async (texts) => texts.map((t) => Float32Array.from(vector(t))),
    close: async () => {},
  };
}

/**
 * --fusion's value: rrf, or weighted:W (W the cosine's share, 0-1); each
 * with an optional @N, the candidates a side gives.
 * @param {string} text
 */
function parseFusion(text) {
  const m = /^(rrf|weighted)(?::(0(?:\.\d+)?|1(?:\.0+)?))?(?:@(\d+))?$/.exec(text);
  if (m === null || (m[1] === 'rrf' && m[2] !== undefined)) {
    throw usage(`--fusion needs ${FusionMethods.join(' or ')}, as rrf[@N] or weighted:W[@N], got ${JSON.stringify(text)}`);
  }
  return {
    method: m[1],
    vectorWeight: m[2] === undefined ? DEFAULT_FUSION.vectorWeight : Number(m[2]),
    candidates: m[3] === undefined ? DEFAULT_FUSION.candidates : Number(m[3]),
  };
}

/** @param {{method: string, vectorWeight: number, candidates: number}} f */
const fusionLabel = (f) => (f.method === 'rrf' ? `rrf@${f.candidates}` : `w${f.vectorWeight}@${f.candidates}`);

const HELP = `usage: node scripts/bench/quality.mjs [--set FILE] [--store level|postgres] [--embeddings] [--fusion F]...
       [--misses] [--json]

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
  --fusion F  with --embeddings, a fusion to score, repeatable (default the
              daemon's: ${DEFAULT_FUSION.method === 'rrf' ? 'rrf' : `weighted:${DEFAULT_FUSION.vectorWeight}`}@${DEFAULT_FUSION.candidates}): rrf[@N] or weighted:W[@N], W the
              cosine's share of the score, N the candidates each side gives
  --json      print the results, with every query's ranking, as one JSON document
  --help      this text

Needs a built daemon package (npm run bench:quality builds first).`;

/** What --embeddings takes: the two fakes, then the daemon's own embedders. */
const EMBEDDERS = ['glove', 'concepts', 'ollama', 'openai', 'local'];

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { json: false, help: false, misses: false, setPaths: undefined, store: 'level', embeddings: false, fusions: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--misses') opts.misses = true;
    else if (arg === '--embeddings') {
      opts.embeddings = EMBEDDERS.includes(argv[i + 1]) ? argv[++i] : 'glove';
    }
    else if (arg === '--fusion') opts.fusions.push(parseFusion(argv[++i] ?? ''));
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
  if (opts.fusions.length > 0 && !opts.embeddings) throw usage('--fusion needs --embeddings');
  if (opts.fusions.length === 0) opts.fusions.push(DEFAULT_FUSION);
  opts.setPaths ??= opts.embeddings ? [DEFAULT_SET_PATH, CONVERSATIONS_SET_PATH, PARAPHRASE_SET_PATH] : [DEFAULT_SET_PATH, CONVERSATIONS_SET_PATH];
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
  const results = [];
  for (const setPath of opts.setPaths) {
    const set = await loadSet(setPath);
    const contents = new Map(set.facts.map((f) => [f.key, f.content]));
    const memoryd = await evaluate({ setPath, store: opts.store });
    const fts5 = await evaluate({ setPath, store: 'fts5' });
    const hybrids = [];
    if (opts.embeddings) {
      const embedder = await fakeEmbedder(opts.embeddings);
      for (const fusion of opts.fusions) {
        hybrids.push({ label: `+${opts.embeddings} ${fusionLabel(fusion)}`, fusion, result: await evaluate({ setPath, store: opts.store, embedder, fusion }) });
      }
    }
    results.push({ set: setPath, memoryd, fts5, hybrids: hybrids.map((h) => ({ fusion: h.fusion, ...h.result })) });
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

main().catch((err) => {
  process.stderr.write(`quality: ${err.stack ?? err}\n`);
  process.exit(1);
});
