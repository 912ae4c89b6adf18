/**
 * Opens the tunnel relay with what its account API, capture and settings enforcement share: the accounts, the
 * stored tunnel settings and their enforcer (issue 19), and the account side of the one `/api` plugin.
 *
 * @module
 */
import type { TunnelScopes } from '@mcppipe/events';
import type { AccountStore } from '@mcppipe/oauth';
import type { RelayDeps, TunnelRelay } from '../tunnel/relay.js';
import { createRelay } from '../tunnel/relay.js';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { gatewayEvents } from '../events/tunnels.js';
import type { SharedState } from '../scale/shared.js';
import { zoneConfig } from '../tunnel/address.js';
import type { Logger } from '../types.js';
import { captureOptions, captureRoutes } from './exchangesApi.js';
import { accountRoutes } from './sessionApi.js';
import { SessionStore } from './sessionStore.js';
import type { SessionTable } from './sessionStore.js';
import { sharedSessions } from '../scale/sessions.js';
import { followHoldSetting } from './settingsHold.js';
import { createSettingsEnforcer, tunnelId } from './settingsRelay.js';
import { TunnelSettingsStore } from './settingsStore.js';
import type { SharedSettingsStore } from './settingsStore.js';
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
 * @param deps - the relay's dependencies (without settings), its accounts, the data directory and the tunnels'
 *   event scopes (their tool pins mark the stats `changed`)
 * @returns the relay and the account API
 * @throws McpPipeError when the settings file is not what it should be
 */
export async function openTunnelRelay(
  deps: Omit<RelayDeps, 'settings'> & {
    accounts: AccountStore;
    dataDir: string;
    sessions?: SessionTable;
    scopes?: TunnelScopes;
    /** Many nodes (S1): the settings live in this shared store. */
    sharedStore?: SharedSettingsStore | undefined;
  },
): Promise<OpenedRelay> {
  const { dataDir, sessions = new SessionStore(), scopes, sharedStore, ...rest } = deps;
  const settings = await TunnelSettingsStore.open(dataDir);
  if (sharedStore !== undefined)
    await settings.share(sharedStore, (err) =>
      rest.logger.warn({ err: (err as Error).message }, 'tunnel settings: could not reload from Redis'),
    );
  // a tunnel's last connect metadata: its settings still answer (with its auth and allowlist) once it disconnected
  const lastConnect = new Map<string, { metadata: Record<string, string>; zeroKnowledge: boolean }>();
  const hold =
    scopes && followHoldSetting({ settings, scopes, registry: () => opened.registry, logger: rest.logger });
  const opened = createRelay({
    ...rest,
    settings: createSettingsEnforcer(settings),
    onTunnelEvent: (e, registry) => {
      const t = e.type === 'tunnel.connected' ? registry.lookup(e.subdomain, e.account) : undefined;
      if (t !== undefined)
        lastConnect.set(tunnelId(t), { metadata: t.metadata, zeroKnowledge: t.zeroKnowledge });
      rest.onTunnelEvent?.(e, registry);
      if (t !== undefined) hold?.apply(tunnelId(t)); // after the scope knows the connection
    },
  });
  const relay: TunnelRelay = {
    ...opened,
    close: async () => {
      settings.close();
      await opened.close();
    },
  };
  const { cluster } = relay;
  const account = accountRoutes({
    accounts: deps.accounts,
    registry: relay.registry,
    settings,
    sessions,
    ...(cluster && { remote: () => cluster.remoteTunnels() }),
    lastConnect: (id: string) => lastConnect.get(id),
  });
  const capture = captureRoutes(relay, scopes);
  const savedAuth = (id: string) => settings.get(id)?.auth;
  const api = {
    sessions,
    routes: [account, capture],
    relay: { cluster, publicUrl: relay.publicUrl, savedAuth },
  };
  return { relay, api };
}

/** What {@link openEventsAndRelay} needs besides the supervisor. */
export interface OpenEventsAndRelayOptions {
  dataDir: string;
  tunnelZone?: string | undefined;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  publicUrl: string;
  /** The shared state of many nodes (`--redis`, S1/S2); undefined on one node. */
  shared: SharedState | undefined;
  /** Set once the provider exists (it needs the relay's resources first). */
  oauth: RelayDeps['oauth'];
}

/**
 * Opens every event scope of a gateway process (E1–E4: its configured servers' and, with `--tunnel-zone`, the
 * tunnels') and the relay with its capture, settings and cluster.
 *
 * @param supervisor - the supervisor of the configured servers
 * @param options - see {@link OpenEventsAndRelayOptions}
 * @returns the gateway's events, the tunnels' events and the relay (both undefined without `--tunnel-zone`)
 * @throws McpPipeError when the accounts or settings file is not what it should be
 */
export async function openEventsAndRelay(supervisor: UpstreamRegistry, options: OpenEventsAndRelayOptions) {
  const { env, logger, shared } = options;
  const { events, tunnel: tunnelEvents } = await gatewayEvents(supervisor, {
    ...options,
    accountsStore: shared?.store,
  });
  const tunnel =
    options.tunnelZone === undefined || tunnelEvents === undefined
      ? undefined
      : await openTunnelRelay({
          zone: zoneConfig(options.tunnelZone, options.publicUrl),
          accounts: tunnelEvents.accounts,
          scopes: tunnelEvents.scopes,
          dataDir: options.dataDir,
          oauth: options.oauth,
          logger,
          onTunnelEvent: tunnelEvents.onTunnelEvent,
          capture: captureOptions(env, shared && { store: shared.store, logger }),
          cluster: shared?.cluster,
          sharedStore: shared?.store,
          // S1: one login for every node
          ...(shared && { sessions: sharedSessions(shared.store.collection('sessions'), { logger }) }),
        });
  return { events, tunnelEvents, tunnel };
}
