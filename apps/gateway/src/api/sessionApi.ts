/**
 * The account side of `/api` (issue 19 items 1, 3 and 5): session login, API keys and tunnel settings, as one
 * Fastify plugin the gateway registers when the relay is on (`--tunnel-zone`).
 *
 * @module
 */
import type { AccountStore } from '@mcppipe/oauth';
import type { TunnelOwner, TunnelRegistry } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keysRoutes } from './keys.js';
import { sessionRoutes } from './session.js';
import type { SessionTable } from './sessionStore.js';
import { settingsRoutes, type SettingsDeps } from './settings.js';
import type { TunnelSettingsStore } from './settingsStore.js';

/** What {@link accountRoutes} needs. */
export interface AccountRoutesDeps {
  accounts: AccountStore;
  registry: TunnelRegistry;
  settings: TunnelSettingsStore;
  /** The dashboard sessions (the `/api` caller resolver reads the same table). */
  sessions: SessionTable;
  /** Many nodes (S2): the tunnels other nodes hold. */
  remote?: (() => readonly TunnelOwner[]) | undefined;
  /** A tunnel's last connect metadata as this node saw it (`SettingsDeps.lastConnect`). */
  lastConnect?: SettingsDeps['lastConnect'];
}

/**
 * The account side of `/api`, registered inside the one `/api` plugin, after its caller hook (which sets
 * `req.apiCaller`: the routes never resolve a caller again).
 *
 * @param deps - accounts, the relay's registry, the settings store and the sessions
 * @returns the route registrar
 */
export function accountRoutes(deps: AccountRoutesDeps): (app: FastifyInstance) => void {
  const { accounts, sessions } = deps;
  const resolveCaller = (req: FastifyRequest) => req.apiCaller;
  return (app) => {
    sessionRoutes(app, { accounts, sessions, resolveCaller });
    keysRoutes(app, { accounts, registry: deps.registry, resolveCaller });
    settingsRoutes(app, {
      registry: deps.registry,
      store: deps.settings,
      ...(deps.remote && { remote: deps.remote }),
      ...(deps.lastConnect && { lastConnect: deps.lastConnect }),
    });
  };
}
