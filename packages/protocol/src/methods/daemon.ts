import { Type } from '@sinclair/typebox';
import { Limits } from '../limits.js';
import { defineMethod } from '../method.js';
import { Timestamp } from '../schemas/primitives.js';

const Count = Type.Integer({ minimum: 0 });

/** Greets the daemon: who it is, which protocol it speaks, what it can do. */
export const DaemonHello = defineMethod(
  'daemon.hello',
  Type.Object({
    client: Type.Optional(Type.String({ maxLength: Limits.helloStringMaxLength, description: 'Client name, for logs.' })),
    clientVersion: Type.Optional(Type.String({ maxLength: Limits.helloStringMaxLength })),
  }),
  Type.Object({
    daemonVersion: Type.String(),
    protocolVersion: Type.Integer({ minimum: 1 }),
    capabilities: Type.Array(Type.String(), { description: 'A client must not assume a capability not listed here.' }),
    pid: Type.Integer(),
    startedAt: Timestamp,
  }),
  'Version, protocol version, capabilities, pid and start time of the daemon.',
);

/** Meaning search's state in `daemon.status`. */
export const EmbeddingsStatus = Type.Object({
  embedder: Type.String({ description: 'The provider: "ollama", "openai" or "local".' }),
  model: Type.String({ description: "The model's name as the provider knows it." }),
  dimensions: Type.Integer({ minimum: 0, description: "The vectors' dimensions; 0 until the first vector is known." }),
  pending: Type.Integer({ minimum: 0, description: 'Current facts without a vector yet (still being loaded or embedded).' }),
  lastError: Type.Optional(
    Type.String({
      description: 'Why the last call to the embedder (or the read of the store it needed) failed; cleared by the next call that succeeds. Searches meanwhile are lexical for what is not embedded.',
    }),
  ),
  /** When lastError happened. @since 1 */
  lastErrorAt: Type.Optional(Timestamp),
  /**
   * The queue stopped on `lastError`, a failure that waiting cannot mend.
   * @since 1
   */
  stopped: Type.Optional(
    Type.Literal(true, {
      description:
        'The queue stopped on lastError, a failure that waiting cannot mend (an unknown model, a refused key, vectors of other dimensions than the stored ones): nothing is embedded, and searches are lexical, until memoryd restarts or `memoryctl embeddings rebuild`.',
    }),
  ),
});

/** The daemon's state and the store's counts. */
export const DaemonStatus = defineMethod(
  'daemon.status',
  Type.Object({}),
  Type.Object({
    daemonVersion: Type.String(),
    pid: Type.Integer(),
    uptimeMs: Count,
    socket: Type.String(),
    dataDir: Type.String(),
    store: Type.String({ description: 'The store backend: "level" (LevelDB in the data dir) or "postgres".' }),
    connections: Count,
    facts: Type.Integer({ minimum: 0, description: 'Current facts, all agents.' }),
    checkpoints: Type.Integer({ minimum: 0, description: 'Checkpoints, all agents.' }),
    agents: Type.Integer({ minimum: 0, description: 'Agents with at least one current fact or checkpoint.' }),
    /**
     * `ok`, or `read-only: CAUSE` while writes are refused because one
     * failed (a full disk); reads are served meanwhile, and writes resume
     * once the daemon has reopened the store by itself.
     * @since 1 (added in daemon 0.2; older daemons omit it)
     */
    health: Type.String({
      description: '"ok", or "read-only: CAUSE" while writes are refused after a failed write (reads go on; writes resume by themselves once the cause is gone).',
    }),
    /**
     * Meaning search's state, present only when the daemon runs with an
     * embedder (docs/embeddings.md).
     * @since 1 (added in daemon 0.3; older daemons and daemons without an embedder omit it)
     */
    embeddings: Type.Optional(EmbeddingsStatus),
  }),
  'Version, pid, uptime, socket, data dir, store backend, open connections, counts of facts, checkpoints and agents, health, and (with an embedder) meaning search\'s state.',
);

/** Asks the daemon to stop gracefully, as on SIGTERM. */
export const DaemonShutdown = defineMethod(
  'daemon.shutdown',
  Type.Object({}),
  Type.Object({ ok: Type.Literal(true) }),
  'Answers {ok: true}, then stops gracefully as on SIGTERM.',
);
