/**
 * Opens the tunnel relay when `--tunnel-zone` is set (T4): the accounts (the file, or the shared store on many
 * nodes, S1) and, with `--redis`, the cluster of relay nodes (S2).
 *
 * @module
 */
import { AccountStore } from '@mcppipe/oauth';
import type { OAuthProvider } from '@mcppipe/oauth';
import type { GatewayOptions } from '../options.js';
import type { SharedState } from '../scale/shared.js';
import type { Logger } from '../types.js';
import { zoneConfig } from './address.js';
import { createRelay } from './relay.js';
import type { TunnelRelay } from './relay.js';

/** What {@link openRelay} needs besides the options. */
export interface OpenRelayDeps {
  publicUrl: string;
  /** The shared state of many nodes; undefined on one node. */
  shared: SharedState | undefined;
  /** Set once the provider exists (it needs the relay's resources first). */
  oauth: () => Pick<OAuthProvider, 'authenticateBearer' | 'protectedResourceMetadata'>;
  logger: Logger;
}

/**
 * @param options - the gateway options (`tunnelZone`, `dataDir`)
 * @param deps - see {@link OpenRelayDeps}
 * @returns the relay, or undefined without `--tunnel-zone`
 * @throws McpPipeError `MCPP_OAUTH_ACCOUNT_INVALID` for an unreadable accounts file
 */
export async function openRelay(
  options: GatewayOptions,
  deps: OpenRelayDeps,
): Promise<TunnelRelay | undefined> {
  if (options.tunnelZone === undefined) return undefined;
  return createRelay({
    zone: zoneConfig(options.tunnelZone, deps.publicUrl),
    accounts: await AccountStore.open(options.dataDir, { store: deps.shared?.store }),
    oauth: deps.oauth,
    logger: deps.logger,
    cluster: deps.shared?.cluster,
  });
}
