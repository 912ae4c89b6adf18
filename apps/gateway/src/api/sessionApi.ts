/**
 * The account side of `/api` (issue 19 items 1, 3 and 5): session login, API keys and tunnel settings, as one
 * Fastify plugin the gateway registers when the relay is on (`--tunnel-zone`).
 *
 * @module
 */
import type { AccountStore } from '@mcppipe/oauth';
import type { TunnelRegistry } from '@mcppipe/tunnel';
import type { FastifyInstance } from 'fastify';
import { createCallerResolver } from './caller.js';
import { keysRoutes } from './keys.js';
import { sessionRoutes } from './session.js';
import { SessionStore } from './sessionStore.js';
import { settingsRoutes } from './settings.js';
import type { TunnelSettingsStore } from './settingsStore.js';

/** What {@link sessionApi} needs. */
export interface SessionApiDeps {
  accounts: AccountStore;
  registry: TunnelRegistry;
  settings: TunnelSettingsStore;
  /** The admin API token (`MCPPIPE_API_TOKEN`), if set. */
  apiToken?: string | undefined;
  /** Default: a new in-memory table. */
  sessions?: SessionStore;
}

/**
 * Builds the plugin.
 *
 * @param deps - accounts, the relay's registry, the settings store and the admin token
 * @returns the plugin (register it with `app.register`)
 */
export function sessionApi(deps: SessionApiDeps) {
  const sessions = deps.sessions ?? new SessionStore();
  const resolveCaller = createCallerResolver({ apiToken: deps.apiToken, accounts: deps.accounts, sessions });
  return async (app: FastifyInstance): Promise<void> => {
    sessionRoutes(app, { accounts: deps.accounts, sessions, resolveCaller });
    keysRoutes(app, { accounts: deps.accounts, registry: deps.registry, resolveCaller });
    settingsRoutes(app, { registry: deps.registry, store: deps.settings, resolveCaller });
  };
}
