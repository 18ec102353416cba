import {
  AdminExport,
  AdminImport,
  AdminReembed,
  AgentList,
  Capabilities,
  CheckpointList,
  CheckpointResume,
  CheckpointSave,
  DaemonHello,
  DaemonShutdown,
  DaemonStatus,
  MemoryAdd,
  MemoryHistory,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  MemoryTags,
  type MethodDescriptor,
  type MethodName,
  type ParamsOf,
  PROTOCOL_VERSION,
  type ResultOf,
  validateParams,
  Limits,
} from '@memoryd/protocol';
import type { Embeddings } from './embed/embeddings.js';
import { DaemonError, DaemonErrorCodes, invalidParams } from './errors.js';
import type { RpcMethod } from './server/rpc-dispatcher.js';
import type { MemoryStore } from './store/memory-store.js';
import { DAEMON_VERSION } from './version.js';

/** What the daemon-level methods need to know about the running daemon. */
export interface DaemonContext {
  readonly pid: number;
  readonly startedAt: Date;
  readonly socket: string;
  readonly dataDir: string;
  /** The store backend, as `--store` chose it. */
  readonly store: string;
  connectionCount(): number;
  /** Starts a graceful stop after the current response is written. */
  requestShutdown(reason: string): void;
}

type Handler<M extends MethodDescriptor> = (params: ParamsOf<M>) => Promise<ResultOf<M>>;

/**
 * Pairs a descriptor with its handler. Params are validated here, once, at
 * the edge, with the descriptor's compiled schema; handlers trust them.
 */
function method<M extends MethodDescriptor>(descriptor: M, handler: Handler<M>): RpcMethod {
  return {
    name: descriptor.method,
    async handle(params: unknown) {
      const checked = validateParams(descriptor, params);
      if (!checked.ok) throw invalidParams(checked.error.field, checked.error.reason);
      return handler(checked.value);
    },
  };
}

/** Every method of docs/protocol.md "Methods", wired to the store and the daemon. */
export function daemonMethods(store: MemoryStore, ctx: DaemonContext, embeddings?: Embeddings): RpcMethod[] {
  const table: Record<MethodName, RpcMethod> = {
    'daemon.hello': method(DaemonHello, async () => ({
      daemonVersion: DAEMON_VERSION,
      protocolVersion: PROTOCOL_VERSION,
      capabilities: Object.values(Capabilities),
      pid: ctx.pid,
      startedAt: ctx.startedAt.toISOString(),
    })),
    'daemon.status': method(DaemonStatus, async () => {
      const counts = await store.counts();
      return {
        daemonVersion: DAEMON_VERSION,
        pid: ctx.pid,
        uptimeMs: Math.max(0, Date.now() - ctx.startedAt.getTime()),
        socket: ctx.socket,
        dataDir: ctx.dataDir,
        store: ctx.store,
        connections: ctx.connectionCount(),
        ...counts,
        health: store.health(),
        ...(embeddings === undefined ? {} : { embeddings: embeddings.state() }),
      };
    }),
    'memory.add': method(MemoryAdd, (p) => store.addFact(p)),
    'memory.search': method(MemorySearch, async (p) => {
      if (embeddings === undefined) return { facts: (await store.searchFacts(p)).facts };
      return { facts: await embeddings.search(p.agentId, p.query, p.limit ?? Limits.limitDefault, (limit) => store.searchFacts({ ...p, limit })) };
    }),
    'memory.list': method(MemoryList, (p) => store.listFacts(p)),
    'memory.reflect': method(MemoryReflect, (p) => store.reflect(p)),
    'memory.history': method(MemoryHistory, (p) => store.history(p)),
    'memory.tags': method(MemoryTags, (p) => store.tags(p)),
    'checkpoint.save': method(CheckpointSave, (p) => store.saveCheckpoint(p)),
    'checkpoint.resume': method(CheckpointResume, (p) => store.resumeCheckpoint(p)),
    'checkpoint.list': method(CheckpointList, (p) => store.listCheckpoints(p)),
    'agent.list': method(AgentList, (p) => store.listAgents(p)),
    'admin.export': method(AdminExport, (p) => store.exportPage(p)),
    'admin.import': method(AdminImport, (p) => store.importRecords(p)),
    'admin.reembed': method(AdminReembed, async () => {
      if (embeddings === undefined) {
        throw new DaemonError(DaemonErrorCodes.InvalidParams, 'memoryd runs without an embedder: start it with --embedder ollama, openai or local');
      }
      return { pending: await embeddings.rebuild() };
    }),
    'daemon.shutdown': method(DaemonShutdown, async () => {
      ctx.requestShutdown('daemon.shutdown');
      return { ok: true as const };
    }),
  };
  return Object.values(table);
}
