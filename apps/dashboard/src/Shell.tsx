// The signed-in frame: the tunnel picker (`GET /api/tunnels`, refreshed every few seconds while the page is shown, so
// a tunnel going offline or coming back shows without a reload, and a gateway that stops answering is said at the
// next refresh), the four tabs, and the active tab's view. A route naming a tunnel the account does not have is
// replaced by its first tunnel, saying so.
import { useEffect, useState } from 'preact/hooks';
import { Unreachable, api } from './api.js';
import { TABS, go, href, parse, useLoad, useRoute } from './hooks.js';
import type { Tab } from './hooks.js';
import { Keys } from './settings/Keys.js';
import { Inspector } from './tabs/Inspector.js';
import { Live } from './tabs/Live.js';
import { Settings } from './tabs/Settings.js';
import { Tools } from './tabs/Tools.js';
import type { Session, TunnelInfo } from './types.js';

/** How often the tunnel list (connected or offline, auth) is read again while the page is visible. */
const REFRESH_MS = 5000;

const TITLES: Record<Tab, string> = {
  live: 'Live',
  inspector: 'Inspector',
  tools: 'Tools',
  settings: 'Settings',
};

interface ViewProps {
  tunnel: TunnelInfo;
  tab: Tab;
  exchange: string | undefined;
  /** Settings saved: the tunnel list (its auth mode) is read again at once. */
  onSaved: () => void;
}

function View({ tunnel, tab, exchange, onSaved }: ViewProps) {
  switch (tab) {
    case 'live':
      return <Live tunnel={tunnel} />;
    case 'inspector':
      return <Inspector tunnel={tunnel} exchange={exchange} />;
    case 'tools':
      return <Tools tunnel={tunnel} />;
    case 'settings':
      return <Settings tunnel={tunnel} onSaved={onSaved} />;
  }
}

export function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const { value, error, failure, reload } = useLoad(() => api.tunnels().then((r) => r.tunnels), []);
  // no answer: the last list stays, but nothing in it is claimed connected
  const down = failure instanceof Unreachable;
  const [missing, setMissing] = useState<string | undefined>(undefined);
  const tunnels = value ?? [];
  const tunnel = tunnels.find((t) => t.id === route.tunnel);
  useEffect(() => {
    const again = () => document.visibilityState === 'visible' && reload();
    const timer = setInterval(again, REFRESH_MS);
    document.addEventListener('visibilitychange', again);
    return () => (clearInterval(timer), document.removeEventListener('visibilitychange', again));
  }, [reload]);
  useEffect(() => {
    // the first tunnel when none is chosen or the chosen one is not this account's (a link to another account's,
    // a removed one); read from the address bar itself, not this render's route: a navigation made while the
    // list was loading (a link, the address bar) must not be overridden
    const now = parse(location.hash);
    if (!value || (now.tunnel === undefined ? !value[0] : value.some((t) => t.id === now.tunnel))) return;
    if (now.tunnel !== undefined) setMissing(now.tunnel);
    go({ ...(value[0] && { tunnel: value[0].id }), tab: now.tab }, true);
  }, [route.tunnel, value]);
  return (
    <div class="shell">
      <header>
        <strong class="brand">mcppipe</strong>
        <label class="picker">
          Tunnel
          <select
            name="tunnel"
            value={route.tunnel ?? ''}
            onChange={(ev) => (setMissing(undefined), go({ tunnel: ev.currentTarget.value, tab: route.tab }))}
          >
            {tunnels.length === 0 && <option value="">no tunnels</option>}
            {tunnels.map((t) => (
              <option key={t.id} value={t.id}>
                {t.id} {down ? '◌ unknown' : t.connected ? '●' : '○ offline'}
              </option>
            ))}
          </select>
        </label>
        <button class="ghost" onClick={reload} title="Reload the tunnel list">
          ↻
        </button>
        <span class="spacer" />
        <span class="muted">{session.account}</span>
        <button class="ghost" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="tabs" role="tablist">
        {TABS.map((tab) => (
          <a
            key={tab}
            role="tab"
            aria-selected={route.tab === tab}
            class={route.tab === tab ? 'active' : ''}
            href={href({ ...(route.tunnel && { tunnel: route.tunnel }), tab })}
          >
            {TITLES[tab]}
          </a>
        ))}
      </nav>
      <main class="pad">
        {down ? (
          <p class="error banner" role="alert">
            The gateway is not answering (retrying every {REFRESH_MS / 1000} s).
          </p>
        ) : (
          error && <p class="error">{error}</p>
        )}
        {missing && (
          <p class="notice" role="status">
            No tunnel {missing} in this account.
          </p>
        )}
        {tunnel && (
          <p class="muted small">
            {tunnel.publicUrl} · auth {tunnel.auth}
            {tunnel.zeroKnowledge && ' · zero-knowledge (metadata only)'}
            {down ? ' · state unknown' : !tunnel.connected && ' · offline'}
          </p>
        )}
        {tunnel ? (
          <View key={tunnel.id} tunnel={tunnel} tab={route.tab} exchange={route.exchange} onSaved={reload} />
        ) : (
          value && (
            <>
              <p class="muted">
                No tunnel yet: create an API key below, then start one with{' '}
                <code>mcppipe up … --tunnel RELAY_URL --api-key KEY</code> (docs/tunnel.md).
              </p>
              <Keys />
            </>
          )
        )}
      </main>
    </div>
  );
}
