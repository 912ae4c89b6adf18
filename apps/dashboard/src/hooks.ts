// Small hooks: the hash route, one SSE subscription, and a loader for one API call.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api.js';

/** The four tabs (DESIGN.md D2). */
export const TABS = ['live', 'inspector', 'tools', 'settings'] as const;
/** One of {@link TABS}. */
export type Tab = (typeof TABS)[number];

/** The route `#/<tunnel>/<tab>/<exchange>`, each part optional. */
export interface Route {
  tunnel?: string;
  tab: Tab;
  exchange?: string;
}

/** Reads a route from a location hash (`#/<tunnel>/<tab>/<exchange>`); an unknown tab reads as `live`. */
export function parse(hash: string): Route {
  const [tunnel, tab, exchange] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return {
    ...(tunnel && { tunnel }),
    tab: (TABS as readonly string[]).includes(tab ?? '') ? (tab as Tab) : 'live',
    ...(exchange && { exchange }),
  };
}

/** Builds a hash for a route. */
export function href(route: Route): string {
  const parts = [route.tunnel ?? '', route.tab, route.exchange ?? ''].map(encodeURIComponent);
  return `#/${parts.join('/').replace(/\/+$/, '')}`;
}

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const on = () => setRoute(parse(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Navigates to a route; `replace`: in place of the current history entry (a route corrected, not a visit). */
export function go(route: Route, replace = false): void {
  if (replace) location.replace(href(route));
  else location.hash = href(route);
}

/**
 * Subscribes to an SSE stream of our API while mounted. `onEvent` gets each event of the listed types as parsed
 * JSON; `onOpen` runs at each (re)connection, so a view can reload its snapshot to cover a gap.
 */
export function useEventStream(
  url: string | undefined,
  types: readonly string[],
  handlers: { onEvent: (type: string, data: unknown) => void; onOpen?: () => void },
): boolean {
  const ref = useRef(handlers);
  ref.current = handlers;
  const [open, setOpen] = useState(false);
  const key = types.join(',');
  useEffect(() => {
    if (url === undefined) return;
    const source = new EventSource(url);
    source.onopen = () => {
      setOpen(true);
      ref.current.onOpen?.();
    };
    source.onerror = () => setOpen(false);
    const listener = (ev: MessageEvent<string>) => {
      try {
        ref.current.onEvent(ev.type, JSON.parse(ev.data));
      } catch {
        // a frame that is not JSON is not ours to show
      }
    };
    for (const type of key.split(',')) source.addEventListener(type, listener);
    return () => source.close();
  }, [url, key]);
  return open;
}

/**
 * Loads one API value; `reload()` fetches again. After a failure `value` stays the last one loaded, `error` says
 * why and `failure` is what was thrown (e.g. an `Unreachable` gateway).
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    run().then(
      (v) => (setValue(v), setFailure(undefined)),
      (err: unknown) => setFailure(err),
    );
  }, [run]);
  useEffect(reload, [reload]);
  const error = failure === undefined ? undefined : describeError(failure);
  return { value, error, failure, reload, setValue };
}
