import { createHash } from 'node:crypto';

// A stand-in for sentence-embedding models of any strength, computed in
// process, for the sweep of `npm run bench:quality -- --sweep` (ADR 0036:
// where no real model can run, a simulation is swept across the range
// users bring). It knows the relevance set it serves: a query's vector
// leans towards the facts the set judges relevant to it, by as much as
// `signal` says, and is noise otherwise. What it does not simulate: a
// model's errors that are not noise (a near-miss fact ranked first for a
// reason), or meaning shared by facts no query judges.

/** What a relevance set gives the simulation: its facts' texts and its queries' judgements. */
export interface SimulatedSet {
  facts: ReadonlyArray<{ key: string; content: string }>;
  /** A query text that appears more than once points at the union of its judged facts. */
  queries: ReadonlyArray<{ query: string; relevant: readonly string[] }>;
}

/** How strong a model {@link simulatedEmbedder} simulates, over which set. */
export interface SimulatedEmbedderOptions {
  set: SimulatedSet;
  /**
   * The share of a query vector's variance that points at its relevant
   * facts, in [0, 1]: 0 is noise, 1 a perfect model. A query's cosine with
   * its one relevant fact is then about √signal (before {@link common}).
   */
  signal: number;
  /**
   * The weight c of one direction every vector shares, ≥ 0 (default 0):
   * it crowds the cosines of unrelated texts into a narrow band near
   * c²/(1+c²), as bge models do (c = 1.53 gives about 0.7); 0 leaves them
   * spread around 0, as MiniLM and OpenAI models do.
   */
  common?: number;
  /** The vectors' length (default 384). */
  dimensions?: number;
}

/**
 * An in-process embedder of simulated strength. It has the shape of
 * @memoryd/daemon's `Embedder` (structurally: test-support imports only
 * the protocol), posing as an Ollama model named by its parameters, so
 * the daemon's meaning search runs on it unchanged.
 */
export interface SimulatedEmbedder {
  readonly kind: 'ollama';
  /** `simulated-s<signal>-c<common>`, and `-d<dimensions>` when not 384. */
  readonly model: string;
  /** `ollama:<model>`. */
  readonly space: string;
  readonly maxBatch: number;
  readonly dimensions: number;
  readonly signal: number;
  readonly common: number;
  embed(texts: readonly string[], purpose: 'query' | 'document', signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** The vectors' length unless told. */
export const SIMULATED_DIMENSIONS = 384;
/** The batch a real Ollama embedder takes (docs/embeddings.md, "What happens"). */
const MAX_BATCH = 64;
/** Seeds the direction every vector shares; a fixed string, so every run and every model share it. */
const COMMON_SEED = 'memoryd simulated embedder: common direction';
/** Keeps a query's noise apart from the document vector of the same text. */
const NOISE_PREFIX = 'memoryd simulated embedder: query noise\0';

/**
 * A unit gaussian vector of `dims` drawn from the text: SHA-256 of it
 * seeds xorshift32, whose draws become gaussians by Box-Muller. Two
 * unrelated texts' cosine is then about N(0, 1/dims).
 */
export function gaussianVector(text: string, dims: number): Float64Array {
  // A zero state would stay zero; `| 1` keeps it odd, as hashVector does.
  let state = createHash('sha256').update(text).digest().readUInt32LE(0) | 1;
  // xorshift32 never yields 0 from a non-zero state: each draw is in (0, 1), so log() is finite.
  const uniform = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const v = new Float64Array(dims);
  for (let i = 0; i < dims; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    v[i] = r * Math.cos(theta);
    if (i + 1 < dims) v[i + 1] = r * Math.sin(theta);
  }
  return normalise(v);
}

/** `v` scaled to length 1, in place (a zero vector stays zero). */
function normalise(v: Float64Array): Float64Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** a·x + b·y, a new vector. */
function combine(a: number, x: Float64Array, b: number, y: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = a * x[i]! + b * y[i]!;
  return out;
}

/** Shortest decimal form of a parameter, for the model's name (0.02, not 0.020000000000000004). */
const label = (x: number) => String(Number(x.toPrecision(6)));

/**
 * An embedder of simulated strength over one relevance set:
 *
 * - a document's vector is {@link gaussianVector} of its text;
 * - a query's, for a text that is one of the set's queries, is
 *   normalise(√signal · û + √(1−signal) · n̂), û the normalised sum of the
 *   document vectors of the facts judged relevant to it and n̂ a gaussian
 *   vector of its own; any other query text gets n̂ alone;
 * - with `common` c > 0, every vector v then becomes normalise(v + c·ê),
 *   ê one fixed gaussian direction.
 *
 * Deterministic: the same text gives the same vector in every run. A
 * judged key the set's facts lack throws a RangeError.
 */
export function simulatedEmbedder(options: SimulatedEmbedderOptions): SimulatedEmbedder {
  const { set, signal } = options;
  const common = options.common ?? 0;
  const dimensions = options.dimensions ?? SIMULATED_DIMENSIONS;
  if (!(signal >= 0 && signal <= 1)) throw new RangeError(`simulatedEmbedder: signal must be in [0, 1], got ${signal}`);
  if (!(common >= 0 && Number.isFinite(common))) throw new RangeError(`simulatedEmbedder: common must be a finite number ≥ 0, got ${common}`);
  if (!(Number.isInteger(dimensions) && dimensions > 0)) throw new RangeError(`simulatedEmbedder: dimensions must be a positive integer, got ${dimensions}`);

  const contentOf = new Map(set.facts.map((f) => [f.key, f.content]));
  const judged = new Map<string, Set<string>>();
  for (const q of set.queries) {
    const keys = judged.get(q.query) ?? new Set<string>();
    for (const key of q.relevant) {
      if (!contentOf.has(key)) throw new RangeError(`simulatedEmbedder: query ${JSON.stringify(q.query)} judges ${key}, which the set's facts lack`);
      keys.add(key);
    }
    judged.set(q.query, keys);
  }

  const shared = gaussianVector(COMMON_SEED, dimensions);
  const withCommon = (v: Float64Array) => (common === 0 ? v : normalise(combine(1, v, common, shared)));
  const documentVector = (text: string) => gaussianVector(text, dimensions);
  const queryVector = (text: string) => {
    const noise = gaussianVector(NOISE_PREFIX + text, dimensions);
    const keys = judged.get(text);
    if (keys === undefined || signal === 0) return noise;
    const evidence = new Float64Array(dimensions);
    for (const key of keys) {
      const d = documentVector(contentOf.get(key)!);
      for (let i = 0; i < dimensions; i++) evidence[i]! += d[i]!;
    }
    return normalise(combine(Math.sqrt(signal), normalise(evidence), Math.sqrt(1 - signal), noise));
  };

  const model = `simulated-s${label(signal)}-c${label(common)}${dimensions === SIMULATED_DIMENSIONS ? '' : `-d${dimensions}`}`;
  return {
    kind: 'ollama',
    model,
    space: `ollama:${model}`,
    maxBatch: MAX_BATCH,
    dimensions,
    signal,
    common,
    async embed(texts, purpose, abort) {
      abort?.throwIfAborted();
      return texts.map((t) => Float32Array.from(withCommon(purpose === 'query' ? queryVector(t) : documentVector(t))));
    },
    async close() {},
  };
}
