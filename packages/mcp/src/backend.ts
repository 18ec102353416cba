import type { DaemonHello, MethodDescriptor, ParamsOf, ResultOf } from '@memoryd/protocol';

/**
 * What the tools need of the daemon: typed calls and the capabilities of
 * the daemon answering them. `DaemonClient` from `@memoryd/client`
 * satisfies it structurally; the shim depends on this interface so a tool's
 * logic does not care how the daemon is reached.
 */
export interface MemoryBackend {
  /** Connects (and autostarts the daemon when allowed); idempotent. */
  connect(): Promise<ResultOf<typeof DaemonHello>>;
  /** Calls one RPC method, connecting first when not connected. */
  call<M extends MethodDescriptor>(m: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Whether the daemon of the current connection announced `name` in its hello. */
  hasCapability(name: string): boolean;
}
