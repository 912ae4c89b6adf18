/**
 * The gateway's authorization server (`@mcppipe/oauth`): the resources it issues tokens for, the tunnels' owners,
 * the state shared by every node and the admin password, as `startGateway` opens it.
 *
 * @module
 */
import { createOAuthProvider } from '@mcppipe/oauth';
import type { OAuthProvider, ResourceOwners } from '@mcppipe/oauth';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { GatewayOptions } from '../options.js';
import type { SharedState } from '../scale/shared.js';
import type { Logger } from '../types.js';

/** What {@link openGatewayOAuth} needs besides the options and the environment. */
export interface GatewayOAuthParts {
  logger: Logger;
  /** The public bases answered as themselves: the public URL, or every loopback spelling of it (13.4). */
  bases: readonly string[];
  /** The configured servers (each is the resource `<base>/servers/<name>/mcp`). */
  supervisor: Pick<UpstreamRegistry, 'list'>;
  /** The tunnel relay's resources and their owners (`--tunnel-zone`); undefined without a relay. */
  relay?: { resources(): string[]; owners: ResourceOwners } | undefined;
  /** The state shared by every node (S1); undefined on one node. */
  shared?: Pick<SharedState, 'signing' | 'store'> | undefined;
}

/**
 * Opens the authorization server. Its resources are read at each use: `<base>/hub`, `<base>/mcp` and
 * `<base>/servers/<name>/mcp` for every base and configured server, then the live tunnels' resources.
 *
 * @param options - the gateway options (`dataDir`, `publicUrl`)
 * @param env - where `MCPPIPE_ADMIN_PASSWORD` and `MCPPIPE_ADMIN_PASSWORD_HASH` are read (empty: unset)
 * @param parts - logger, bases, servers, relay and shared state
 * @returns the provider
 * @throws McpPipeError from `createOAuthProvider` (data directory, keys, admin password)
 */
export async function openGatewayOAuth(
  options: Pick<GatewayOptions, 'dataDir' | 'publicUrl'>,
  env: NodeJS.ProcessEnv,
  parts: GatewayOAuthParts,
): Promise<OAuthProvider> {
  const { bases, supervisor, relay, shared } = parts;
  return createOAuthProvider({
    dataDir: options.dataDir,
    publicUrl: options.publicUrl,
    // every loopback spelling is a resource of its own when they are answered as themselves (13.4)
    resources: () =>
      bases
        .flatMap((base) => [
          `${base}/hub`,
          `${base}/mcp`,
          ...supervisor.list().map((s) => `${base}/servers/${s.name}/mcp`),
        ])
        .concat(relay?.resources() ?? []),
    ...(relay && { owners: relay.owners }),
    sharedKeys: shared?.signing,
    sharedStore: shared?.store, // S1: OAuth clients, refresh families and revocations on every node
    adminPassword: env['MCPPIPE_ADMIN_PASSWORD'] || undefined,
    adminPasswordHash: env['MCPPIPE_ADMIN_PASSWORD_HASH'] || undefined,
    logger: parts.logger,
  });
}
