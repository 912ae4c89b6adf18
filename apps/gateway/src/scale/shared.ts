/**
 * Many gateway nodes over one Redis (DESIGN.md S1, S2): with `--redis URL` / `MCPPIPE_REDIS_URL` the gateway's
 * shared state goes to the Redis store: the pre-auth rate-limit buckets (`RedisBucketStore`), the relay's
 * accounts and keys (revocations reach every node through pub/sub), the one signing key (one JWKS for all nodes),
 * the OAuth clients, refresh-token families and access-token revocations (`store`, passed to the OAuth provider),
 * tunnel ownership with the node-to-node link and one account per subdomain, the dashboard sessions
 * (`scale/sessions.ts`) and the webhook subscriptions and tool pins (`scale/events.ts`). Without it nothing
 * changes: the file backend as before.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { McpPipeError } from '@mcppipe/errors';
import { openRedisStore, RedisBucketStore, redactRedisUrl } from '@mcppipe/store';
import type { Collection, RedisStore } from '@mcppipe/store';
import { MIN_NODE_SECRET_LENGTH, TunnelCluster } from '@mcppipe/tunnel';
import type { TunnelOwner, TunnelRegistry } from '@mcppipe/tunnel';
import type { GatewayOptions } from '../options.js';
import type { Logger } from '../types.js';

/** The environment variable holding the secret every node shares (node-to-node requests carry it). */
export const NODE_SECRET_ENV = 'MCPPIPE_NODE_SECRET';

/** The shared state of one node; `close()` it last. */
export interface SharedState {
  store: RedisStore;
  /** Pre-auth rate-limit buckets shared by every node. */
  buckets: RedisBucketStore;
  /** Where the one signing key lives. */
  signing: Collection<string>;
  /** This process's node id (a restarted node is a new node). */
  nodeId: string;
  /** Builds the tunnel cluster over the relay's registry (tunnel zone only). */
  cluster(registry: TunnelRegistry): TunnelCluster;
  close(): Promise<void>;
}

/**
 * Opens the shared state when `options.redisUrl` is set.
 *
 * @param options - the gateway options (`redisUrl`, `nodeUrl`, `tunnelZone`)
 * @param env - where `MCPPIPE_NODE_SECRET` is read
 * @param logger - stderr logger (the URL is logged without its password)
 * @returns the shared state, or undefined for one node (the file backend)
 * @throws McpPipeError `MCPP_CLI_USAGE` when the relay runs without a node secret; `MCPP_STORE_UNAVAILABLE`
 *   when Redis cannot be reached at boot
 */
export async function openSharedState(
  options: GatewayOptions,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<SharedState | undefined> {
  if (options.redisUrl === undefined) return undefined;
  const secret = env[NODE_SECRET_ENV] ?? '';
  if (options.tunnelZone !== undefined && secret.length < MIN_NODE_SECRET_LENGTH)
    throw new McpPipeError(
      'MCPP_CLI_USAGE',
      `${NODE_SECRET_ENV} must be set to the same secret of at least ${MIN_NODE_SECRET_LENGTH} characters on every node when --redis and --tunnel-zone are used (e.g. openssl rand -hex 32)`,
    );
  const store = await openRedisStore({ url: options.redisUrl, logger });
  const nodeId = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  logger.info({ redis: redactRedisUrl(options.redisUrl), nodeId }, 'shared state in Redis');
  return {
    store,
    buckets: new RedisBucketStore(store),
    signing: store.collection<string>('signing'),
    nodeId,
    cluster: (registry) =>
      new TunnelCluster({
        leases: store.collection<TunnelOwner>('tunnels'),
        registry,
        nodeId,
        nodeUrl: options.nodeUrl,
        secret,
        logger,
      }),
    close: () => store.close(),
  };
}
