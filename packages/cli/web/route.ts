// Where the page is: the part of the address after `#`, so that back,
// forward and bookmarks work, and the server serves one page.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'agents' }
  | { view: 'status' }
  | { view: 'transfer' }
  | { view: 'facts'; agentId: string }
  | { view: 'fact'; agentId: string; factId: string }
  | { view: 'checkpoints'; agentId: string }
  | { view: 'checkpoint'; agentId: string; checkpointId: string }
  | { view: 'missing'; path: string };

/** The route an address's hash names. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  let parts: string[];
  try {
    parts = path === '' ? [] : path.split('/').map((p) => decodeURIComponent(p));
  } catch {
    return { view: 'missing', path };
  }
  const [first, agentId, kind, id] = parts;
  if (parts.length === 0) return { view: 'agents' };
  if (parts.length === 1 && (first === 'status' || first === 'transfer')) return { view: first };
  if (first === 'agents' && agentId !== undefined) {
    if (parts.length === 2) return { view: 'facts', agentId };
    if (kind === 'facts' && id !== undefined && parts.length === 4) return { view: 'fact', agentId, factId: id };
    if (kind === 'checkpoints' && parts.length === 3) return { view: 'checkpoints', agentId };
    if (kind === 'checkpoints' && id !== undefined && parts.length === 4) return { view: 'checkpoint', agentId, checkpointId: id };
  }
  return { view: 'missing', path };
}

/** The address (a hash) of a route. */
export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.view) {
    case 'agents':
      return '#/';
    case 'status':
    case 'transfer':
      return `#/${route.view}`;
    case 'facts':
      return `#/agents/${e(route.agentId)}`;
    case 'fact':
      return `#/agents/${e(route.agentId)}/facts/${e(route.factId)}`;
    case 'checkpoints':
      return `#/agents/${e(route.agentId)}/checkpoints`;
    case 'checkpoint':
      return `#/agents/${e(route.agentId)}/checkpoints/${e(route.checkpointId)}`;
    case 'missing':
      return `#/${route.path}`;
  }
}

/** Goes to a route (a new entry in the history). */
export function go(route: Route): void {
  location.hash = href(route);
}

/** The current route, following the address. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
}
