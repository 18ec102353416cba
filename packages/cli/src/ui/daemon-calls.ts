import type { ServerResponse } from 'node:http';
import { ClientErrorCodes, type DaemonClient, isClientError } from '@memoryd/client';
import {
  AgentList,
  CheckpointList,
  CheckpointResume,
  DaemonStatus,
  ErrorCodes,
  type MethodDescriptor,
  MemoryAdd,
  MemoryHistory,
  MemoryList,
  MemoryReflect,
  MemorySearch,
  MemoryTags,
} from '@memoryd/protocol';
import { sendError, sendJson } from './responses.js';

/**
 * The daemon methods the page may call through `POST /api/call`: reading
 * and correcting facts and checkpoints, and the status. Not the admin
 * methods (export and import have their own routes), not shutdown, not
 * checkpoint.save: the page shows what agents saved, it does not save.
 */
const PAGE_METHODS: ReadonlyMap<string, MethodDescriptor> = new Map(
  [DaemonStatus, AgentList, MemoryList, MemorySearch, MemoryHistory, MemoryTags, MemoryAdd, MemoryReflect, CheckpointList, CheckpointResume].map((m) => [m.method, m]),
);

/** The HTTP status of a daemon error code. */
function statusOfRpc(code: number | undefined): number {
  if (code === ErrorCodes.InvalidParams || code === ErrorCodes.InvalidRequest) return 400;
  if (code === ErrorCodes.NotFound) return 404;
  if (code === ErrorCodes.StorageError || code === ErrorCodes.Overloaded) return 503;
  return 502;
}

/** The HTTP status of a client error that is not the daemon's answer. */
function statusOfClientError(code: string): number {
  if (code === ClientErrorCodes.Unsupported) return 501;
  if (code === ClientErrorCodes.Timeout) return 504;
  return 503;
}

/**
 * Answers a failed daemon call: the daemon's own code and message (a
 * number, docs/protocol.md "Errors") or the client's (a MEMORYD_ string)
 * with a status that says whose fault it is. Anything else is thrown on,
 * to the server's one answer for its own failures (server.ts).
 */
export function sendDaemonError(res: ServerResponse, err: unknown): void {
  if (!isClientError(err)) throw err;
  if (err.code === ClientErrorCodes.Rpc) sendError(res, statusOfRpc(err.rpcCode), err.rpcCode ?? err.code, err.message);
  else sendError(res, statusOfClientError(err.code), err.code, err.message);
}

/**
 * `POST /api/call` with `{method, params}`: one call of an allowed daemon
 * method, answered `{result}` or an error. The daemon checks the params,
 * as it does for every client.
 */
export async function callForPage(client: DaemonClient, body: string, res: ServerResponse): Promise<void> {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    sendError(res, 400, 'UI_BAD_REQUEST', 'the body is not JSON');
    return;
  }
  const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
  const descriptor = typeof method === 'string' ? PAGE_METHODS.get(method) : undefined;
  if (descriptor === undefined) {
    sendError(res, 400, 'UI_BAD_REQUEST', `the page may not call ${JSON.stringify(method)}; it calls ${[...PAGE_METHODS.keys()].join(', ')}`);
    return;
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    sendError(res, 400, 'UI_BAD_REQUEST', 'params must be a JSON object');
    return;
  }
  try {
    sendJson(res, 200, { result: await client.call(descriptor, params as never) });
  } catch (err) {
    sendDaemonError(res, err);
  }
}
