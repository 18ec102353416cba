// The public surface of @memoryd/client. Adding a symbol here makes it
// public API: do so intentionally.

export {
  type CallOptions,
  DEFAULT_BUSY_POLL_US,
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
