/**
 * The gateway process (STYLE.md §9): loads `mcp.json`, starts the supervisor (gateway policy, G8), the
 * OAuth provider (`oauth/provider.ts`), the hub and the aggregator, builds the app, listens, and hot-reloads the
 * config (`reload.ts`). Its `close()` is the graceful shutdown (`shutdown.ts`): stop watching, stop accepting, let
 * requests in flight finish for a grace period, then stop the upstream processes.
 *
 * @module
 */
import { createAggregator, createPolicyGate } from '@mcppipe/aggregator';
import { loadMcpJson } from '@mcppipe/config';
import { createHub } from '@mcppipe/hub';
import type { OAuthProvider } from '@mcppipe/oauth';
import { Supervisor } from '@mcppipe/supervisor';
import { gatewayPolicy } from '@mcppipe/upstream-state';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { createLogger } from './logger.js';
import { oauthRoutes } from './oauth/index.js';
import { openGatewayOAuth } from './oauth/provider.js';
import { loopbackOrigins } from './pipeline/loopbackAliases.js';
import { isLoopbackHost } from '@mcppipe/http';
import type { GatewayOptions } from './options.js';
import { listenAppOrExplain, listenNodeLink } from './listen.js';
import { layoutPolicy, watchLayout } from './reload.js';
import { openEventsAndRelay } from './api/settingsOpen.js';
import { openSharedState } from './scale/shared.js';
import { gatewayShutdown } from './shutdown.js';

/** A running gateway. */
export interface RunningGateway {
  app: FastifyInstance;
  /** The public base URL. */
  publicUrl: string;
  /** The address it listens on, e.g. `http://127.0.0.1:3000`. */
  address: string;
  /** Settles when every server has connected or failed its first attempt. */
  ready: Promise<void>;
  /** Graceful shutdown; idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the gateway.
 *
 * @param options - resolved options (see `resolveGatewayOptions`)
 * @param env - where admin password variables are read. Default `process.env`
 * @throws McpPipeError from config loading, the OAuth provider or listening
 */
export async function startGateway(
  options: GatewayOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningGateway> {
  const logger = createLogger(options.logLevel, options.logFile);
  const layout = await loadMcpJson(options.configPath, { logger });
  const { publicUrl } = options;
  const aliases = options.loopbackAliases === true && isLoopbackHost(options.host);
  const bases = aliases ? loopbackOrigins(publicUrl) : [publicUrl];
  const supervisor = new Supervisor({
    upstreams: layout.upstreams,
    policy: gatewayPolicy(),
    logger,
  });
  const shared = await openSharedState(options, env, logger); // S1/S2: undefined on one node (the files)
  const late: { oauth?: OAuthProvider } = {}; // the provider needs the relay's resources first
  // E1–E4 (events, webhooks, tool pins of the servers and tunnels) and, with --tunnel-zone, the relay (T1–T7)
  const opts = { ...options, env, logger, publicUrl, shared, oauth: () => late.oauth! };
  const { events, tunnelEvents, tunnel } = await openEventsAndRelay(supervisor, opts);
  const oauth = await openGatewayOAuth(options, env, {
    logger,
    bases,
    supervisor,
    relay: tunnel?.relay,
    shared,
  });
  late.oauth = oauth;
  const apiToken = env['MCPPIPE_API_TOKEN'] || undefined;
  // One gate for /mcp, /hub and every /servers/<name>/mcp (P3): shared rules and buckets, swapped on reload.
  const policy = createPolicyGate({ policy: layoutPolicy(layout), logger });
  const hub = createHub({ registry: events.registry, logger, policy });
  const aggregator = createAggregator({ registry: events.registry, mode: 'aggregate', logger, policy });
  const app = await buildApp({
    registry: events.registry,
    events,
    ...(apiToken !== undefined && { apiToken }),
    verifier: oauth,
    publicUrl,
    hub,
    aggregate: aggregator,
    policy,
    oauthRoutes: oauthRoutes(oauth, { protectedResourceMetadata: false, cors: false }),
    resourceMetadata: (resource) => oauth.protectedResourceMetadata(resource),
    host: options.host,
    trustedProxies: options.trustedProxies,
    allowedOrigins: options.allowedOrigins,
    loopbackAliases: aliases,
    ...(tunnel &&
      tunnelEvents && {
        tunnelHook: tunnel.relay.hook,
        tunnelEvents,
        accountApi: tunnel.api,
        tunnelZone: options.tunnelZone,
      }),
    ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    rateLimit: {
      max: options.rateLimitPerMinute,
      shared: shared?.buckets,
      ...(tunnel && { onRefused: tunnel.relay.hook.refusedBefore }), // shown in the tunnel's Live
    },
    ...(shared && { ready: () => shared.store.ping() }),
    clientLimits: {
      ...(options.clientRequestsPerMinute !== undefined && {
        requestsPerMinute: options.clientRequestsPerMinute,
      }),
      ...(options.clientConcurrency !== undefined && { maxInFlight: options.clientConcurrency }),
    },
    logger,
  });
  aggregator.on('list_changed', (kind) => {
    const notify = app.gateway.hosts.aggregate?.notify;
    if (kind === 'tools') notify?.toolsChanged();
    else if (kind === 'prompts') notify?.promptsChanged();
    else notify?.resourcesChanged();
  });
  aggregator.on('resource_updated', (uri) => app.gateway.hosts.aggregate?.notify.resourceUpdated(uri));

  const address = await listenAppOrExplain(app, { host: options.host, port: options.port });
  if (tunnel) app.server.on('upgrade', tunnel.relay.onUpgrade);
  await listenNodeLink(tunnel?.relay.cluster, { host: options.host, port: options.nodePort ?? 3100 }); // S2
  logger.info(
    { address, publicUrl, tunnelZone: options.tunnelZone, servers: layout.upstreams.map((u) => u.name) },
    `gateway listening on ${address}`,
  );
  // Servers start behind the listener: until one is up, its path answers 503 "connecting".
  const ready = supervisor.start().then(
    () => {
      const phases = Object.fromEntries(supervisor.list().map((s) => [s.name, s.phase]));
      logger.info({ phases }, 'servers started');
    },
    () => {},
  );
  const watcher = await watchLayout(
    options.configPath,
    { gate: policy, supervisor, initial: layout },
    logger,
  );

  const close = gatewayShutdown(
    { watcher, relay: tunnel?.relay, app, endpoints: [hub, aggregator], events, supervisor, oauth, shared },
    logger,
  );
  return { app, publicUrl, address, ready, close, [Symbol.asyncDispose]: close };
}
