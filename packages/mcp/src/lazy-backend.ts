import type { DaemonClient, DaemonClientOptions } from '@memoryd/client';
import type { DaemonHello, MethodDescriptor, ParamsOf, ResultOf } from '@memoryd/protocol';
import type { MemoryBackend } from './backend.js';

/**
 * A MemoryBackend that loads `@memoryd/client` (and the protocol schemas it
 * brings) on the first call rather than at start-up: answering initialize
 * and tools/list never needs the daemon.
 */
export class LazyBackend implements MemoryBackend {
  #client: DaemonClient | undefined;
  #loading: Promise<DaemonClient> | undefined;

  constructor(private readonly options: DaemonClientOptions) {}

  async #get(): Promise<DaemonClient> {
    if (this.#client !== undefined) return this.#client;
    this.#loading ??= import('@memoryd/client').then(({ DaemonClient }) => (this.#client = new DaemonClient(this.options)));
    return this.#loading;
  }

  async connect(): Promise<ResultOf<typeof DaemonHello>> {
    return (await this.#get()).connect();
  }

  async call<M extends MethodDescriptor>(m: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return (await this.#get()).call(m, params);
  }

  hasCapability(name: string): boolean {
    return this.#client?.hasCapability(name) ?? false;
  }

  /** Closes the client if it was ever made. */
  async close(): Promise<void> {
    await this.#client?.close();
  }
}
