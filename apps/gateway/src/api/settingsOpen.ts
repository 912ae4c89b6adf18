/**
 * Opens the tunnel relay with what its account API, capture and settings enforcement share: the accounts, the
 * stored tunnel settings and their enforcer (issue 19), and the account side of the one `/api` plugin.
 *
 * @module
 */
import type { AccountStore } from '@mcppipe/oauth';
import type { RelayDeps, TunnelRelay } from '../tunnel/relay.js';
import { createRelay } from '../tunnel/relay.js';
import { captureRoutes } from './exchangesApi.js';
import { accountRoutes } from './sessionApi.js';
import { SessionStore } from './sessionStore.js';
import { createSettingsEnforcer } from './settingsRelay.js';
import { TunnelSettingsStore } from './settingsStore.js';
import type { AccountApi } from '../types.js';

/** The relay and its account side. */
export interface OpenedRelay {
  relay: TunnelRelay;
  /** The account side of `/api` (session, keys, settings, exchanges, stats), registered in the `/api` plugin. */
  api: AccountApi;
}

/**
 * Reads `tunnel-settings.json` from the data directory and creates the relay.
 *
 * @param deps - the relay's dependencies (without settings), its accounts and the data directory
 * @returns the relay and the account API
 * @throws McpPipeError when the settings file is not what it should be
 */
export async function openTunnelRelay(
  deps: Omit<RelayDeps, 'settings'> & { accounts: AccountStore; dataDir: string },
): Promise<OpenedRelay> {
  const { dataDir, ...rest } = deps;
  const settings = await TunnelSettingsStore.open(dataDir);
  const relay = createRelay({ ...rest, settings: createSettingsEnforcer(settings) });
  const sessions = new SessionStore();
  const account = accountRoutes({ accounts: deps.accounts, registry: relay.registry, settings, sessions });
  const capture = captureRoutes(relay);
  return { relay, api: { sessions, routes: [account, capture] } };
}
