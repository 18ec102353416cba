import { ErrorCodes } from '@memoryd/protocol';
import { JSONRPCErrorException, type JSONRPCErrorResponse, createJSONRPCErrorResponse, type JSONRPCID } from 'json-rpc-2.0';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';

// The one place where errors become wire codes (docs/architecture.md, "Errors"). A DaemonError
// maps by its stable code; a JSONRPCErrorException passes through; anything
// else is a bug: its stack goes to the log, the client gets a generic text.

/** The wire form of any error thrown while serving a request. */
export function toErrorResponse(id: JSONRPCID, err: unknown, method: string, log: Logger): JSONRPCErrorResponse {
  if (err instanceof DaemonError) {
    switch (err.code) {
      case DaemonErrorCodes.InvalidParams:
        log.debug('invalid params', { method, data: err.data });
        return createJSONRPCErrorResponse(id, ErrorCodes.InvalidParams, err.message, err.data);
      case DaemonErrorCodes.NotFound:
        log.debug('not found', { method, message: err.message });
        return createJSONRPCErrorResponse(id, ErrorCodes.NotFound, err.message);
      case DaemonErrorCodes.ReadOnly:
        // The failure behind it was logged once, when it happened; a refusal per request would flood the log.
        log.debug('write refused: the store is read-only', { method, message: err.message });
        return createJSONRPCErrorResponse(id, ErrorCodes.StorageError, err.message);
      case DaemonErrorCodes.StoreUnavailable:
        // An outage fails every request meanwhile: one line each, no stack (health says it too).
        log.warn('store unavailable', { method, message: err.message });
        return createJSONRPCErrorResponse(id, ErrorCodes.StorageError, err.message);
      case DaemonErrorCodes.Storage:
      case DaemonErrorCodes.Decode:
      case DaemonErrorCodes.Damaged:
      case DaemonErrorCodes.StoreDamaged:
        // The message names the cause; the whole chain goes to the log.
        log.error('storage error', { method, err });
        return createJSONRPCErrorResponse(id, ErrorCodes.StorageError, err.message);
      default:
        break;
    }
  } else if (err instanceof JSONRPCErrorException) {
    return createJSONRPCErrorResponse(id, err.code, err.message, err.data);
  }
  log.error('internal error', { method, err });
  return createJSONRPCErrorResponse(id, ErrorCodes.InternalError, 'Internal error');
}
