// Reading from the daemon inside a view: what arrived, what failed, and
// whether it is still on its way. An answer to an older request never
// overwrites a newer one (a search typed ahead of its answers).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** Reads again (after a change made on the page). */
  reload(): void;
}

/** Runs `read` when `deps` change (not at all while `read` is undefined), keeping only the latest answer. */
export function useLoad<T>(read: (() => Promise<T>) | undefined, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: read !== undefined });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    if (read === undefined) return;
    const ticket = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    read().then(
      (data) => ticket === latest.current && setState({ data, loading: false }),
      (error: Error) => ticket === latest.current && setState({ error, loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** `value`, once it has stayed the same for `ms` (typing). */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
