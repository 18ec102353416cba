// The public surface of @memoryd/daemon: embedding the daemon (tests,
// benchmarks) and its local errors. Adding a symbol here makes it public.

export { type DaemonConfig, parseInvocation } from './config.js';
export { startDaemon, type RunningDaemon } from './daemon.js';
export { DaemonError, DaemonErrorCodes, type DaemonErrorCode } from './errors.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export type { LexicalResult, MemoryStore, StoreCounts } from './store/memory-store.js';
export type { OpenStoreOptions } from './store/level/open-store.js';
export { type LevelStore, openStore } from './store/level/supervised-store.js';
export { openPostgresStore, type PostgresMemoryStore, type PostgresStoreOptions } from './store/postgres/pg-store.js';
export { type EmbedPurpose, type Embedder, EmbedderError } from './embed/embedder.js';
export { Embeddings, type EmbeddingsOptions, type EmbeddingsState } from './embed/embeddings.js';
export { chanceMaximum, fuse, type Fused, type LexicalSide, MEANING_FROM, MEANING_TO, type Ranked, type VectorSide, WORDS_WEIGHT } from './embed/fusion.js';
export { CANDIDATES } from './embed/hybrid-search.js';
export { VectorIndex } from './embed/vector-index.js';
export { VectorLoads } from './embed/vector-loads.js';
export { openEmbedder } from './embed/open-embedder.js';
export { DEFAULT_EMBED_MODELS, DEFAULT_EMBED_URL, type EmbedConfig } from './embed/embed-config.js';
export { RpcDispatcher, type RpcMethod } from './server/rpc-dispatcher.js';
export { SocketServer, type ListenTarget } from './server/socket-server.js';
export { DAEMON_VERSION } from './version.js';
