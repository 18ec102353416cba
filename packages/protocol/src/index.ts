// The public surface of @memoryd/protocol. Adding a symbol here makes it
// public API: do so intentionally.

export { PROTOCOL_VERSION, Capabilities, type Capability } from './version.js';
export { ErrorCodes, ErrorNames, type ErrorCode, type InvalidParamsData } from './errors.js';
export { Limits } from './limits.js';
export { defineMethod, type MethodDescriptor, type ParamsOf, type ResultOf } from './method.js';
export { codePoints, jsonDepth, utf8Bytes, type TState, type TText } from './schemas/kinds.js';
export {
  AgentId,
  CheckpointState,
  Content,
  FilterParams,
  FilterTags,
  Limit,
  MessageCount,
  PageAfter,
  PageNext,
  Query,
  Since,
  Tag,
  Tags,
  Timestamp,
  Ulid,
  Until,
} from './schemas/primitives.js';
export { timeBoundMs, type TTimeBound } from './schemas/time-bound.js';
export {
  AgentSummary,
  Checkpoint,
  CheckpointRecord,
  CheckpointSummary,
  ExportHeader,
  ExportRecord,
  Fact,
  FactRecord,
  FactVersion,
  TagCount,
} from './schemas/records.js';
export { DaemonHello, DaemonShutdown, DaemonStatus, EmbeddingsStatus } from './methods/daemon.js';
export { MemoryAdd, MemoryHistory, MemoryList, MemoryReflect, MemorySearch, MemoryTags } from './methods/memory.js';
export { CheckpointList, CheckpointResume, CheckpointSave } from './methods/checkpoint.js';
export { AgentList } from './methods/agent.js';
export { AdminExport, AdminImport, AdminReembed } from './methods/admin.js';
export { Methods, type MethodName } from './methods/all.js';
export { fieldOf, validate, validateExportRecord, validateParams, type Validation } from './validate.js';
export {
  defaultSocketPath,
  maxSocketPathBytes,
  MaxSocketPathBytes,
  socketDirProblem,
  socketPathProblem,
  type DirStat,
  type SocketEnv,
} from './socket-path.js';
export { type DataDirEnv, defaultDataDir } from './data-dir.js';
export { LineSplitter, MAX_LINE_BYTES } from './framing.js';
