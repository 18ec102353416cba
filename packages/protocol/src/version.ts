/**
 * The protocol version spoken by this package. A daemon announces it in
 * `daemon.hello`; it changes only with an incompatible change to a method
 * name, a param's meaning or a result shape.
 * @since 1
 */
export const PROTOCOL_VERSION = 1 as const;

/**
 * Capabilities that protocol version 1 daemons announce in `daemon.hello`.
 * A client must not assume a capability the daemon did not announce.
 */
export const Capabilities = {
  /**
   * `checkpoint.resume` honours `reportNotFound: true` and answers
   * `{notFound: true}` instead of the -32004 error.
   * @since 1
   */
  reportNotFound: 'reportNotFound',
  /**
   * `memory.add` stores and searches `context` (the text said just before
   * the fact); a daemon without it ignores the param.
   * @since 1
   */
  context: 'context',
  /**
   * `admin.reembed` exists, and `daemon.status` carries `embeddings` when
   * an embedder is configured (meaning search, docs/embeddings.md).
   * @since 1
   */
  embeddings: 'embeddings',
  /**
   * `memory.search` and `memory.list` honour `tags`, `since` and `until`,
   * and `memory.tags` exists; a daemon without it would ignore the
   * filters, so a client refuses to send them there.
   * @since 1
   */
  filters: 'filters',
  /**
   * `memory.history` exists, and `memory.reflect` update takes `tags`
   * (which a daemon without it would ignore).
   * @since 1
   */
  history: 'history',
  /**
   * `memory.list` honours `order: 'newest'` (newest first, `after`
   * continuing downwards); a daemon without it would ignore the param and
   * answer oldest first, so a client refuses to send it there.
   * @since 1
   */
  listOrder: 'listOrder',
} as const;

/** One of {@link Capabilities}. */
export type Capability = (typeof Capabilities)[keyof typeof Capabilities];
