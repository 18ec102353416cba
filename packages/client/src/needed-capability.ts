import { Capabilities, type Capability } from '@memoryd/protocol';

/** What a call asks that only a daemon announcing `capability` does, and the words for it. */
export interface Need {
  capability: Capability;
  /** What the call would have the daemon do, after "cannot". */
  what: string;
}

const FILTERS = ['tags', 'since', 'until'] as const;

/**
 * The capability a call needs beyond protocol 1's first methods, or
 * undefined. A daemon without it would ignore the params that ask for it
 * (unknown params are accepted, docs/protocol.md "Conventions") and answer
 * as if they were not there, or not know the method.
 */
export function neededCapability(method: string, params: unknown): Need | undefined {
  const p = (params ?? {}) as Record<string, unknown>;
  switch (method) {
    case 'memory.search':
    case 'memory.list':
      return FILTERS.some((k) => p[k] !== undefined) ? { capability: Capabilities.filters, what: `filter ${method} by tags, since or until` } : undefined;
    case 'memory.tags':
      return { capability: Capabilities.filters, what: 'list an agent\'s tags (memory.tags)' };
    case 'memory.history':
      return { capability: Capabilities.history, what: 'read a fact\'s history (memory.history)' };
    case 'memory.reflect':
      return p['tags'] !== undefined ? { capability: Capabilities.history, what: 'change a fact\'s tags (memory.reflect with tags)' } : undefined;
    default:
      return undefined;
  }
}
