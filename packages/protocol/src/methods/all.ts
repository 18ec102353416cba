import type { MethodDescriptor } from '../method.js';
import { AdminExport, AdminImport, AdminReembed } from './admin.js';
import { AgentList } from './agent.js';
import { CheckpointList, CheckpointResume, CheckpointSave } from './checkpoint.js';
import { DaemonHello, DaemonShutdown, DaemonStatus } from './daemon.js';
import { MemoryAdd, MemoryHistory, MemoryList, MemoryReflect, MemorySearch, MemoryTags } from './memory.js';

/** Every method of protocol version 1, in the order of docs/protocol.md "Methods". */
export const Methods = [
  DaemonHello,
  DaemonStatus,
  MemoryAdd,
  MemorySearch,
  MemoryList,
  MemoryReflect,
  MemoryHistory,
  MemoryTags,
  CheckpointSave,
  CheckpointResume,
  CheckpointList,
  AgentList,
  AdminExport,
  AdminImport,
  AdminReembed,
  DaemonShutdown,
] as const satisfies readonly MethodDescriptor[];

/** The name of any protocol version 1 method. */
export type MethodName = (typeof Methods)[number]['method'];
