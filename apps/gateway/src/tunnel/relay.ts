/**
 * The tunnel relay of the gateway (DESIGN.md T1–T6), on when `--tunnel-zone` is set: the
 * `@mcppipe/tunnel` registry keyed by the accounts' API keys, wired to its parts: the `GET /tunnel/connect`
 * upgrade (`connect.ts`), the request hook (`hook.ts`), the tunnels' OAuth resources and owners
 * (`resources.ts`), and the accounts watcher that closes the tunnels of revoked keys (`revokedKeys.ts`).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ExchangeCapture } from '@mcppipe/capture';
import type { ExchangeCaptureOptions } from '@mcppipe/capture';
import type { AccountStore, OAuthProvider, ResourceOwners } from '@mcppipe/oauth';
import { TunnelRegistry } from '@mcppipe/tunnel';
import type { TunnelEvent } from '@mcppipe/tunnel';
import { tunnelId, type SettingsEnforcer, type SettingsSubject } from '../api/settingsRelay.js';
import type { TunnelCluster } from '@mcppipe/tunnel';
import type { Logger } from '../types.js';
import type { ZoneConfig } from './address.js';
import { tunnelBases } from './address.js';
import { connectUpgrade } from './connect.js';
import { createRelayHook } from './hook.js';
import { parsePolicy } from './policy.js';
import { tunnelResources } from './resources.js';
import { closeRevokedTunnels } from './revokedKeys.js';

/** A running relay. */
export interface TunnelRelay {
  registry: TunnelRegistry;
  /** The `onRequest` hook, registered before the Host guard and auth. */
  hook: ReturnType<typeof createRelayHook>;
  /** The live tunnels' resource URLs (both forms' `/mcp`), for the authorization server. */
  resources(): string[];
  /** Owner accounts of the tunnels' resources (the consent login is the owner's, T5). */
  owners: ResourceOwners;
  /** The record of exchanges through the tunnels (issue 19). */
  capture: ExchangeCapture;
  /** The relay's accounts and keys. */
  accounts: AccountStore;
  /** Whether the relay has seen a tunnel id (`<subdomain>--<account>`) since it started (issue 19). */
  seen(id: string): boolean;
  /** The name of an API key (its id when unnamed), as exchanges record their caller. */
  keyName(keyId: string): string;
  /** The HTTP server's `upgrade` listener. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Many nodes (S2): ownership records and the node-to-node link; undefined on one node. */
  cluster: TunnelCluster | undefined;
  /** A tunnel's public URL (`https://<subdomain>--<account>.<zone>/mcp`), as the registry gives it. */
  publicUrl(subdomain: string, account: string): string;
  close(): Promise<void>;
}

/** What {@link createRelay} needs. */
export interface RelayDeps {
  zone: ZoneConfig;
  accounts: AccountStore;
  /** Set once the provider exists (it needs the relay's resources and owners first). */
  oauth: () => Pick<OAuthProvider, 'authenticateBearer' | 'protectedResourceMetadata'>;
  logger: Logger;
  /** Every connect and disconnect (the per-tunnel events, E1). */
  onTunnelEvent?: (event: TunnelEvent, registry: TunnelRegistry) => void;
  /** Options of the relay's exchange capture (issue 19: ring bounds, body cap); false: nothing is recorded. */
  capture?: ExchangeCaptureOptions | false;
  /** The owners' stored tunnel settings (issue 19), enforced by the hook. */
  settings?: SettingsEnforcer;
  /** Many nodes (S2): builds the cluster over the relay's registry (see `scale/cluster.ts`). */
  cluster?: ((registry: TunnelRegistry) => TunnelCluster) | undefined;
}

/**
 * Creates the relay.
 *
 * @param deps - zone, accounts, authorization server, logger
 * @returns the relay
 */
export function createRelay(deps: RelayDeps): TunnelRelay {
  const { zone, accounts, logger } = deps;
  const seen = new Set<string>();
  const capture = new ExchangeCapture(deps.capture || {});
  const names = new Map<string, string>(); // key names never change; a revoked key never authenticates again
  const keyName = (keyId: string) => {
    let n = names.get(keyId);
    if (n === undefined)
      names.set(keyId, (n = accounts.listKeys().find((k) => k.id === keyId)?.name ?? keyId));
    return n;
  };
  /** The auth mode a tunnel gets (T5): the owner's saved setting, else what the CLI asked for at connect. */
  const appliedAuth = (t: SettingsSubject): string | undefined => {
    const p = deps.settings?.policy(t) ?? parsePolicy(t.metadata);
    return typeof p === 'string' ? undefined : p.auth;
  };
  const publicUrl = (subdomain: string, account: string) =>
    `${tunnelBases(zone, tunnelId({ subdomain, account })).host}/mcp`;
  const registry = new TunnelRegistry({
    authenticate: (key) => Promise.resolve(accounts.authenticateKey(key)),
    publicUrl,
    logger,
    // T5: the owner's saved auth mode wins over the one asked for; the CLI shows the one applied
    authMode: (claim) => appliedAuth(claim),
    reserve: (claim): Promise<boolean> => cluster?.reserve(claim) ?? Promise.resolve(true), // S2: one subdomain, one account
    onEvent: (e) => {
      deps.onTunnelEvent?.(e, registry);
      if (e.type !== 'tunnel.connected') return void cluster?.release(e.tunnelId, e.subdomain);
      seen.add(tunnelId(e));
      const info = registry.list().find((t) => t.id === e.tunnelId);
      if (info) void cluster?.claim(info);
      if (info && appliedAuth(info) === 'none')
        logger.warn(
          { account: e.account, subdomain: e.subdomain },
          'WARNING: tunnel connected with auth "none": anyone who can reach its URL can use every tool behind it',
        );
    },
  });
  const cluster: TunnelCluster | undefined = deps.cluster?.(registry);
  const stopWatching = closeRevokedTunnels(accounts, registry, logger);
  const oauthProxy = {
    authenticateBearer: (a: string | undefined, r: string) => deps.oauth().authenticateBearer(a, r),
    protectedResourceMetadata: (r: string) => deps.oauth().protectedResourceMetadata(r),
  };
  const owned = tunnelResources(zone, registry, cluster); // this node's and (S2) other nodes'
  return {
    registry,
    hook: createRelayHook({
      zone,
      registry,
      accounts,
      oauth: oauthProxy,
      logger,
      ...(deps.capture !== false && {
        capture: {
          exchanges: capture,
          keyName,
          values: (id: string) => deps.settings?.captureValues(id) ?? false,
        },
      }),
      ...(deps.settings && { settings: deps.settings }),
      cluster,
      seen: (id) => seen.has(id),
    }),
    capture,
    accounts,
    seen: (id) => seen.has(id),
    publicUrl,
    keyName,
    cluster,
    resources: () => [...owned().keys()],
    owners: {
      ownerOf: (resource) => owned().get(resource),
      verifyPassword: (account, password) => accounts.verifyPassword(account, password),
    },
    onUpgrade: connectUpgrade(registry),
    close: async () => {
      stopWatching();
      await registry.close();
      await cluster?.close();
    },
  };
}
