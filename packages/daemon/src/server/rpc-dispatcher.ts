import { ErrorCodes, Limits } from '@memoryd/protocol';
import {
  createJSONRPCErrorResponse,
  JSONRPCErrorException,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
  JSONRPCServer,
} from 'json-rpc-2.0';
import type { Logger } from '../logger.js';
import { toErrorResponse } from './wire-errors.js';

/** A method the dispatcher serves: validation happens inside `handle`. */
export interface RpcMethod {
  readonly name: string;
  handle(params: unknown): Promise<unknown>;
}

/** Runs `task` holding one of the connection's request slots. */
export type SlotRunner = <T>(task: () => Promise<T>) => Promise<T>;

type Message = Record<string, unknown>;

function isId(value: unknown): value is JSONRPCID {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

/**
 * Why `entry` is not a JSON-RPC 2.0 request, or undefined when it is.
 * json-rpc-2.0's own check accepts ids of any type and non-string methods,
 * so the envelope is checked here first (JSON-RPC 2.0 §4, §5).
 */
function envelopeProblem(entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'a request must be a JSON object';
  const m = entry as Message;
  if (m['jsonrpc'] !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof m['method'] !== 'string') return 'method must be a string';
  if ('id' in m && !isId(m['id'])) return 'id must be a string, a number or null';
  return undefined;
}

function invalidRequest(entry: unknown, reason: string): JSONRPCResponse {
  const id = entry !== null && typeof entry === 'object' && isId((entry as Message)['id']) ? ((entry as Message)['id'] as JSONRPCID) : null;
  return createJSONRPCErrorResponse(id, ErrorCodes.InvalidRequest, `Invalid Request: ${reason}`);
}

/**
 * Turns one NDJSON line into its response line (or none, for
 * notifications), using json-rpc-2.0 for method dispatch. Each request,
 * alone or in a batch, runs inside a slot of its connection.
 */
export class RpcDispatcher {
  private readonly server: JSONRPCServer;

  constructor(
    methods: Iterable<RpcMethod>,
    private readonly log: Logger,
  ) {
    // Errors are logged by toErrorResponse, at the level they deserve.
    this.server = new JSONRPCServer({ errorListener: () => {} });
    this.server.mapErrorToJSONRPCErrorResponse = (id, err) => toErrorResponse(id, err, '(dispatch)', log);
    for (const m of methods) {
      this.server.addMethod(m.name, async (params: unknown) => {
        try {
          return await m.handle(params);
        } catch (err) {
          // Map here, where the method name is known; the exception passes
          // through mapErrorToJSONRPCErrorResponse unchanged.
          const { error } = toErrorResponse(null, err, m.name, log);
          throw new JSONRPCErrorException(error.message, error.code, error.data);
        }
      });
    }
  }

  /** The response text for one line (no trailing `\n`), or undefined. */
  async handleLine(line: string, runInSlot: SlotRunner): Promise<string | undefined> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return JSON.stringify(createJSONRPCErrorResponse(null, ErrorCodes.ParseError, 'Parse error: the line is not JSON'));
    }
    if (!Array.isArray(message)) {
      const response = await this.handleEntry(message, runInSlot);
      return response === null ? undefined : JSON.stringify(response);
    }
    if (message.length === 0) {
      return JSON.stringify(invalidRequest(null, 'empty batch'));
    }
    if (message.length > Limits.maxBatchEntries) {
      // Every entry would hold a pending request and its response until the whole batch answers.
      return JSON.stringify(invalidRequest(null, `a batch holds at most ${Limits.maxBatchEntries} entries, this one ${message.length}`));
    }
    const responses = await Promise.all(message.map((entry) => this.handleEntry(entry, runInSlot)));
    const answered = responses.filter((r): r is JSONRPCResponse => r !== null);
    // A batch of notifications only gets nothing back (JSON-RPC 2.0 §6).
    return answered.length === 0 ? undefined : JSON.stringify(answered);
  }

  private async handleEntry(entry: unknown, runInSlot: SlotRunner): Promise<JSONRPCResponse | null> {
    const problem = envelopeProblem(entry);
    if (problem !== undefined) return invalidRequest(entry, problem);
    const request = entry as JSONRPCRequest;
    const response = await runInSlot(() => Promise.resolve(this.server.receive(request)));
    if (response === null || Array.isArray(response)) return null;
    if (request.id === undefined) return null;
    return response;
  }
}
