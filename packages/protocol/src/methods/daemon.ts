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
    connections: Count,
    facts: Type.Integer({ minimum: 0, description: 'Current facts, all agents.' }),
    checkpoints: Type.Integer({ minimum: 0, description: 'Checkpoints, all agents.' }),
    agents: Type.Integer({ minimum: 0, description: 'Agents with at least one current fact or checkpoint.' }),
  }),
  'Version, pid, uptime, socket, data dir, open connections, and counts of facts, checkpoints and agents.',
);

/** Asks the daemon to stop gracefully, as on SIGTERM. */
export const DaemonShutdown = defineMethod(
  'daemon.shutdown',
  Type.Object({}),
  Type.Object({ ok: Type.Literal(true) }),
  'Answers {ok: true}, then stops gracefully as on SIGTERM.',
);
