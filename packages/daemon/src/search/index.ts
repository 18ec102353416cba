// The search engine's parts, for tests and benchmarks that check them
// against a brute-force reference: `@memoryd/daemon/search`. Not part of
// the protocol; see docs/api-stability.md.

export { type AnalysedQuery, type AnalysedTerm, analyze, analyzeQuery } from './analyze.js';
export { B, K1, PREFIX_WEIGHT, type QueryModel, idf, saturation, scoreDoc } from './bm25.js';
export { type DocTerms, TAG_WEIGHT, docTerms } from './doc-terms.js';
export { type Completion, MAX_COMPLETIONS, MAX_PREFIX_SCAN, type PrefixPlan, type QueryPlan, planPrefix, planTerms } from './query-plan.js';
export { type Hit, ResidentIndex, compareCodePoints } from './resident-index.js';
export { PostingPool } from './posting-pool.js';
export { type IndexSnapshot, checksumHolds, decodeImage, encodeImage } from './index-image.js';
export { type IndexFilter } from './filter-mask.js';
export { normalForm, tagKeys } from './normal-form.js';
