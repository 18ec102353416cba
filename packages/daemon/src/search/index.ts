// The search engine's parts, for tests and benchmarks that check them
// against a brute-force reference: `@memoryd/daemon/search`. Not part of
// the protocol; see docs/api-stability.md.

export { type AnalysedQuery, type AnalysedTerm, analyze, analyzeQuery } from './analyze.js';
export { B, K1, PREFIX_WEIGHT, type QueryModel, idf, saturation, scoreDoc } from './bm25.js';
export { type DocTerms, TAG_WEIGHT, docTerms } from './doc-terms.js';
export { type Posting, type PostingSource, type WeightedList, mergeSources, postingBefore } from './postings.js';
export { type Hit, MAX_LISTS, type TopKOptions, topK } from './top-k.js';
export { type Completion, MAX_COMPLETIONS, MAX_PREFIX_SCAN, type PrefixPlan, type QueryPlan, planPrefix, planTerms } from './query-plan.js';
export { ResidentIndex, compareCodePoints } from './resident-index.js';
export { PostingPool } from './posting-pool.js';
export { type IndexSnapshot, decodeImage, encodeImage } from './index-image.js';
// The cache of decoded facts that searches read their answers through.
export { FactCache } from '../store/fact-cache.js';
// The full, compacting garbage collection that follows a large index load.
export { collectGarbage } from '../store/full-gc.js';
