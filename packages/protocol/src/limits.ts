/**
 * Every limit of docs/protocol.md's "Limits" section, as named constants. Schemas
 * are built from these; params past them are invalid_params.
 */
export const Limits = {
  /** agentId length in characters. */
  agentIdMaxLength: 128,
  /** The characters an agentId may use. */
  agentIdPattern: '^[A-Za-z0-9._:@-]+$',
  /** Fact content, in bytes of UTF-8. */
  contentMaxBytes: 16_384,
  /** Tags per fact. */
  tagsMaxItems: 32,
  /** One tag, in Unicode code points. */
  tagMaxCodePoints: 64,
  /** A search query, in bytes of UTF-8. */
  queryMaxBytes: 1_024,
  /** `limit` of search and list. */
  limitMax: 100,
  /** `limit` of search and list when absent. */
  limitDefault: 10,
  /** A checkpoint's state as UTF-8 JSON, in bytes (1 MiB). */
  stateMaxBytes: 1_048_576,
  /** Nesting depth of a checkpoint's state; the state object itself is level 1. */
  stateMaxDepth: 64,
  /** `messageCount` upper bound (int32 max). */
  messageCountMax: 2_147_483_647,
  /** `admin.export` page size. */
  exportLimitMax: 1_000,
  /** `admin.export` page size when absent. */
  exportLimitDefault: 100,
  /** Records per `admin.import` call. */
  importMaxRecords: 1_000,
  /** An idle export cursor expires after this many milliseconds. */
  exportCursorIdleMs: 60_000,
  /** Client name and version strings in `daemon.hello`. */
  helloStringMaxLength: 256,
  /** One NDJSON line, in bytes (8 MiB); longer lines get -32600 and a close. */
  maxLineBytes: 8 * 1024 * 1024,
  /** Requests in progress per connection. */
  maxInFlightPerConnection: 64,
  /** Entries of one batch; a longer batch is one -32600 error (id null) and none of it runs. */
  maxBatchEntries: 64,
  /**
   * Bytes of unfinished lines (read, no `\n` yet) the daemon holds across
   * all connections (64 MiB); past it, the connection holding the largest
   * one gets -32600 and is closed.
   */
  maxUnfinishedLineBytes: 64 * 1024 * 1024,
  /**
   * Default cap on simultaneous connections: each MCP client session holds
   * one (through its memoryd-mcp), so this is room for a thousand sessions;
   * the cap keeps a runaway client from taking the daemon's file descriptors.
   */
  defaultMaxConnections: 1024,
} as const;
