/**
 * Opens the tunnel relay with what its account API and settings enforcement share: the accounts, the stored
 * tunnel settings and their enforcer (issue 19).
 *
 * @module
 */
import { AccountStore } from '@mcppipe/oauth';
import type { RelayDeps, TunnelRelay } from '../tunnel/relay.js';
import { createRelay } from '../tunnel/relay.js';
import { sessionApi } from './sessionApi.js';
import { createSettingsEnforcer } from './settingsRelay.js';
import { SessionStore } from './sessionStore.js';
import { TunnelSettingsStore } from './settingsStore.js';

/** The relay and its account side. */
export interface OpenedRelay {
  relay: TunnelRelay;
  /** The dashboard sessions, shared by every `/api` caller resolver (merge of issue 19's parts). */
  sessions: SessionStore;
  /** What `buildApp` takes of the relay: its hook, the session API and the sessions (every `/api` resolver's). */
  appDeps(apiToken: string | undefined): {
    tunnelHook: TunnelRelay['hook'];
    sessionApi: ReturnType<typeof sessionApi>;
    sessions: SessionStore;
  };
  /** The `/api` plugin for session, keys and settings. */
  api(apiToken: string | undefined): ReturnType<typeof sessionApi>;
}

/**
 * Reads `accounts.json` and `tunnel-settings.json` from the data directory and creates the relay.
 *
 * @param deps - the relay's dependencies (without accounts and settings) and the data directory
 * @returns the relay and the API plugin factory
 * @throws McpPipeError when either file is not what it should be
 */
export async function openTunnelRelay(
  deps: Omit<RelayDeps, 'accounts' | 'settings'> & { dataDir: string },
): Promise<OpenedRelay> {
  const { dataDir, ...rest } = deps;
  const accounts = await AccountStore.open(dataDir);
  const settings = await TunnelSettingsStore.open(dataDir);
  const relay = createRelay({ ...rest, accounts, settings: createSettingsEnforcer(settings) });
  const sessions = new SessionStore();
  return {
    relay,
    sessions,
    api: (apiToken) => sessionApi({ accounts, registry: relay.registry, settings, apiToken, sessions }),
    appDeps: (apiToken) => ({
      tunnelHook: relay.hook,
      sessionApi: sessionApi({ accounts, registry: relay.registry, settings, apiToken, sessions }),
      sessions,
    }),
  };
}
