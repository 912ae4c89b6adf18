/**
 * The relay's per-tunnel events (E1–E3): `TunnelScopes` of `@mcppipe/events` fed by the tunnel registry's
 * connects and disconnects. Each connection's scope requests go over that connection (`Tunnel.request`); the
 * scope is keyed by the tunnel's address label `<subdomain>--<account>`, stable across reconnects.
 *
 * @module
 */
import { SCOPE_METADATA_KEY, TunnelScopes, type ScopeRequester } from '@mcppipe/events';
import { AccountStore } from '@mcppipe/oauth';
import type { Store } from '@mcppipe/store';
import { sharedEventsStore } from '../scale/events.js';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { TunnelEvent, TunnelRegistry } from '@mcppipe/tunnel';
import { tunnelId } from '../api/settingsRelay.js';
import { POLICY_KEYS } from '../tunnel/policy.js';
import type { Logger } from '../types.js';
import {
  createGatewayEvents,
  eventsSettings,
  type GatewayEvents,
  type GatewayEventsOptions,
} from './scope.js';

/** The relay's tunnel events: the scopes the API reads, the accounts whose keys open it, the registry's listener. */
export interface TunnelEvents {
  scopes: TunnelScopes;
  accounts: AccountStore;
  /** Pass every registry event here (`RelayDeps.onTunnelEvent`). */
  onTunnelEvent(event: TunnelEvent, registry: TunnelRegistry): void;
}

/**
 * Creates the relay's tunnel scopes with the gateway's events settings (store, private targets, retry waits).
 *
 * @param options - the same settings as the gateway's own scope (`eventsSettings`)
 * @param accounts - the relay's accounts
 * @returns the scopes and the listener
 */
export function createTunnelEvents(options: GatewayEventsOptions, accounts: AccountStore): TunnelEvents {
  const { store, allowPrivate, retryDelaysMs, logger } = options;
  const scopes = new TunnelScopes({
    ...(store && { store }),
    ...(allowPrivate !== undefined && { allowPrivate }),
    ...(retryDelaysMs && { retryDelaysMs }),
    ...(logger && { logger }),
  });
  const connections = new Map<string, ScopeRequester>();
  return {
    scopes,
    accounts,
    onTunnelEvent(e, registry) {
      const id = tunnelId(e);
      if (e.type === 'tunnel.disconnected') {
        scopes.disconnected({
          id,
          at: e.at,
          reason: e.reason ?? null,
          request: connections.get(e.tunnelId),
          ...(e.replaced && { replaced: true }),
        });
        connections.delete(e.tunnelId);
        return;
      }
      const tunnel = registry.lookup(e.subdomain, e.account);
      if (tunnel?.id !== e.tunnelId) return;
      const request: ScopeRequester = (r) => tunnel.request(r);
      connections.set(e.tunnelId, request);
      scopes.connected({
        id,
        subdomain: e.subdomain,
        account: e.account,
        publicUrl: tunnel.publicUrl,
        auth: tunnel.metadata[POLICY_KEYS.auth] ?? 'oauth',
        zeroKnowledge: tunnel.zeroKnowledge,
        servesScope: tunnel.metadata[SCOPE_METADATA_KEY] === '1',
        connectedAt: tunnel.connectedAt,
        request,
      });
    },
  };
}

/**
 * Every event scope of a gateway process: its configured servers' (always) and, with `--tunnel-zone`, the relay's
 * tunnels' (with the accounts opened from the data directory). `events.close()` closes both.
 *
 * @param supervisor - the supervisor of the configured servers
 * @param options - the data directory, the tunnel zone, the environment (`eventsSettings`) and the logger
 */
export async function gatewayEvents(
  supervisor: UpstreamRegistry,
  options: {
    dataDir: string;
    tunnelZone?: string | undefined;
    env: NodeJS.ProcessEnv;
    logger: Logger;
    /** Where accounts and keys live on many nodes (`--redis`, S1); default the data directory's file. */
    accountsStore?: Store | undefined;
  },
): Promise<{ events: GatewayEvents; tunnel: TunnelEvents | undefined }> {
  const settings = eventsSettings(options.env, options.dataDir, options.logger);
  // S1: webhooks and pins in Redis with --redis (the data directory's files otherwise)
  if (options.accountsStore?.kind === 'redis') settings.store = sharedEventsStore(options.accountsStore);
  const events = await createGatewayEvents(supervisor, settings);
  if (options.tunnelZone === undefined) return { events, tunnel: undefined };
  const tunnel = createTunnelEvents(
    settings,
    await AccountStore.open(options.dataDir, { store: options.accountsStore }),
  );
  const close = events.close;
  events.close = () => (close(), tunnel.scopes.close());
  return { events, tunnel };
}
