// Test helpers shared by the suites of daemon, client and mcp. Test code
// only: no package's src may import this (protocol's layering test checks).
export { cleanupAll, tempDir, trackCloser, trackPid, untrackPid } from './cleanup.js';
export {
  cleanEnv,
  DAEMON_BIN,
  type DaemonHandle,
  MEMORYCTL_BIN,
  daemonPaths,
  type Exit,
  spawnDaemon,
  type SpawnOptions,
  startDaemon,
  testStateHome,
} from './daemon.js';
export { daemonsUnder, isAlive, pidsMentioning, type ProcessInfo, processes, residentBytes, terminate } from './processes.js';
export { canConnect, waitFor, withTimeout } from './wait.js';
export { prng } from './random.js';
export { makeUlid } from './ulid.js';
export { fillDisk, mountTmpfs, type Tmpfs } from './tmpfs.js';
export {
  FAKE_EMBEDDER_MODELS,
  type FakeEmbedder,
  type FakeEmbedderBase64,
  type FakeEmbedderEncodings,
  type FakeEmbedderMode,
  type FakeEmbedderOptions,
  startFakeEmbedder,
} from './fake-embedder.js';
export { GLOVE_DIMENSIONS, hashVector, loadGlove, meaningVector, meaningWords } from './meaning-vectors.js';
// The relevance sets and their one scorer, shared by the quality floors and bench:quality.
export {
  loadRelevanceSet,
  type QueryOutcome,
  RECALL_AT,
  RELEVANCE_SETS,
  type RankingScore,
  type RelevanceFact,
  type RelevanceQuery,
  type RelevanceResult,
  type RelevanceSet,
  type RelevanceSummary,
  SEARCH_LIMIT,
  type SearchUnderTest,
  scoreAnswers,
  scoreRanking,
  scoreSearch,
  summarize,
} from './relevance.js';
// An in-process embedder of simulated strength over a relevance set, weak to
// strong, spread or narrow cosines: the sweep's stand-in for the sentence
// models no test can run (`npm run bench:quality -- --sweep`).
export {
  gaussianVector,
  SIMULATED_DIMENSIONS,
  type SimulatedEmbedder,
  type SimulatedEmbedderOptions,
  type SimulatedSet,
  simulatedEmbedder,
} from './simulated-embedder.js';
