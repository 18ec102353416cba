// The public surface of @memoryd/client. Adding a symbol here makes it
// public API: do so intentionally.

export {
  type CallOptions,
  DaemonClient,
  type DaemonClientOptions,
  type DaemonHelloResult,
  SPOKEN_PROTOCOL_VERSIONS,
} from './daemon-client.js';
export {
  ClientError,
  type ClientErrorCode,
  ClientErrorCodes,
  type ClientErrorOptions,
  isClientError,
} from './errors.js';
// The connection flags are also `@memoryd/client/args`, which loads nothing else (a bin's --help stays quick).
export {
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  type ConnectionFlags,
  connectionFromArgs,
  envValue,
  MEMORYD_BIN_HELP,
  truthy,
  UsageError,
  usageText,
} from './connection-args.js';
export { autostartLogPath } from './autostart-log.js';
export { locateMemoryd, type MemorydCommand } from './locate-memoryd.js';
