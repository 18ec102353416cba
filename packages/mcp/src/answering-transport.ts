import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that knows which requests it has read and not yet answered,
 * around another (the SDK's stdio transport): so that the shim, told by
 * its client that the session is over (stdin closed), can answer every
 * call it was sent before it leaves. A request the client cancels
 * (`notifications/cancelled`) gets no answer and is no longer waited for.
 */
export class AnsweringTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #open = new Set<RequestId>();
  readonly #waiters: Array<() => void> = [];

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ('method' in message) {
        if ('id' in message) this.#open.add(message.id);
        else if (message.method === 'notifications/cancelled') this.#settle((message.params as { requestId?: RequestId } | undefined)?.requestId);
      }
      this.onmessage?.(message, extra);
    };
  }

  /** Resolves once every request read so far has been answered (or cancelled). */
  answered(): Promise<void> {
    return this.#open.size === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.#inner.send(message, options);
    if (!('method' in message) && 'id' in message) this.#settle(message.id);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #settle(id: RequestId | undefined): void {
    if (id === undefined || !this.#open.delete(id) || this.#open.size > 0) return;
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
