import { Capabilities, type Capability } from '@memoryd/protocol';

/** What a call asks that only a daemon announcing `capability` does, and the words for it. */
export interface Need {
  capability: Capability;
  /** What the call would have the daemon do, after "cannot". */
  what: string;
}

const FILTERS = ['tags', 'since', 'until'] as const;

/** The filters capability, when a search or list sends any filter. */
function filtersNeed(method: string, p: Record<string, unknown>): Need[] {
  return FILTERS.some((k) => p[k] !== undefined) ? [{ capability: Capabilities.filters, what: `filter ${method} by tags, since or until` }] : [];
}

/** The listOrder capability, when a list asks for newest first ('oldest' is what every daemon does). */
function orderNeed(p: Record<string, unknown>): Need[] {
  return p['order'] === 'newest' ? [{ capability: Capabilities.listOrder, what: 'list facts newest first (memory.list with order "newest")' }] : [];
}

/**
 * The capabilities a call needs beyond protocol 1's first methods, each
 * with its words; empty when it needs none. A daemon without one would
 * ignore the params that ask for it (unknown params are accepted,
 * docs/protocol.md "Conventions") and answer as if they were not there,
 * or not know the method.
 */
export function neededCapabilities(method: string, params: unknown): Need[] {
  const p = (params ?? {}) as Record<string, unknown>;
  switch (method) {
    case 'memory.search':
      return filtersNeed(method, p);
    case 'memory.list':
      return [...orderNeed(p), ...filtersNeed(method, p)];
    case 'memory.tags':
      return [{ capability: Capabilities.filters, what: 'list an agent\'s tags (memory.tags)' }];
    case 'memory.history':
      return [{ capability: Capabilities.history, what: 'read a fact\'s history (memory.history)' }];
    case 'memory.reflect':
      return p['tags'] !== undefined ? [{ capability: Capabilities.history, what: 'change a fact\'s tags (memory.reflect with tags)' }] : [];
    default:
      return [];
  }
}
