/**
 * `buildApp(deps)`: the gateway's Fastify instance, not listening (STYLE.md §9). The request pipeline runs
 * in this order (DESIGN.md G5): rate limit → bearer verification → audience check → per-client gate →
 * body parsing → routing. Everything stateful (the supervisor, the OAuth provider, the hub and the
 * aggregator) is passed in; the app only adds per-endpoint HTTP hosts, which it closes on `app.close()`.
 *
 * @module
 */
import { serverTimeoutOptions } from '@mcppipe/http';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { bundledDashboardDir, dashboardHeaders, dashboardRoutes } from './dashboard.js';
import { DEFAULT_HEALTH_LIST_TIMEOUT_MS } from './defaults.js';
import { ToolCounter } from './health.js';
import { ClientGate } from './pipeline/clientGate.js';
import { createCorsHook } from './pipeline/cors.js';
import { createHostGuard } from './pipeline/origin.js';
import { registerRateLimit } from './pipeline/rateLimit.js';
import { RPC, refuse } from './pipeline/rpcError.js';
import { EndpointHosts } from './proxy/hosts.js';
import { resolveDeps } from './resolve.js';
import { createCallerResolver } from './api/caller.js';
import { notFound } from './api/reply.js';
import { apiRoutes } from './routes/api.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import type { GatewayDeps } from './types.js';

/** What `buildApp` exposes for inspection (tests, metrics) as `app.gateway`. */
export interface GatewayInternals {
  /** The per-client gate (permits in flight per OAuth client). */
  gate: ClientGate;
  /** The MCP endpoint hosts. */
  hosts: EndpointHosts;
}

declare module 'fastify' {
  interface FastifyInstance {
    gateway: GatewayInternals;
  }
}

/**
 * Builds the gateway app.
 *
 * @param deps - see {@link GatewayDeps}
 * @returns a ready-to-listen Fastify instance (call `listen` or `inject`)
 * @throws McpPipeError `MCPP_CLI_USAGE` for an invalid public URL or limit
 * @example In-process
 * ```ts
 * const app = await buildApp({ registry: supervisor, verifier: provider, publicUrl: 'https://gw.example', hub });
 * await app.listen({ port: 3000, host: '0.0.0.0' });
 * ```
 */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const d = resolveDeps(deps);
  const app = Fastify({
    logger: false,
    trustProxy: d.trustedProxies && d.trustedProxies.length > 0 ? [...d.trustedProxies] : false,
    bodyLimit: d.bodyLimit,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // request and header timeouts: the policy `mcppipe up` shares (D2)
    ...serverTimeoutOptions(d.timeouts),
    connectionTimeout: d.timeouts.connectionTimeoutMs,
    keepAliveTimeout: d.timeouts.keepAliveTimeoutMs,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
  });

  // Stage 1, before every other hook: the per-IP rate limit.
  registerRateLimit(app, d.rateLimit, d.observer);
  // Tunnel traffic (T4) is the relay's: its own auth and allowlist, streamed without body parsing.
  if (d.tunnelHook) app.addHook('onRequest', d.tunnelHook);
  // The dashboard's security headers on every answer under /dashboard, a refusal by the hooks below included.
  const dashboard = d.dashboardDir ?? bundledDashboardDir();
  if (dashboard !== undefined) app.addHook('onRequest', dashboardHeaders);
  if (d.loopback) {
    const hosts = d.tunnelZone === undefined ? [] : [d.tunnelZone]; // the zone apex serves the dashboard (D1)
    app.addHook('onRequest', createHostGuard({ publicUrl: d.publicUrl, loopback: true, hosts }));
  }
  // CORS after the Host guard (no DNS-rebinding bypass) and before auth (a preflight has no Authorization).
  app.addHook(
    'onRequest',
    createCorsHook({ publicUrl: d.publicUrl, loopback: d.loopback, allowedOrigins: d.allowedOrigins }),
  );
  // Unknown paths are answered before anything else runs: no body is read for them (`/api/*` in its own shape).
  app.addHook('onRequest', async (req, reply) => {
    if (!req.is404) return;
    const path = req.url.split('?')[0]!;
    if (path.startsWith('/api/')) return notFound(reply, `no route ${req.method} ${path}`);
    return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found' });
  });

  const gate = new ClientGate({ ...d.clientLimits, now: d.now });
  const hosts = new EndpointHosts({
    registry: d.registry,
    bodyLimit: d.bodyLimit,
    proxyTimeoutMs: d.proxyTimeoutMs,
    logger: d.logger,
    ...(d.hub && { hub: d.hub }),
    ...(d.aggregate && { aggregate: d.aggregate }),
    ...(d.policy && { policy: d.policy }),
  });
  const health = new ToolCounter(d.registry, DEFAULT_HEALTH_LIST_TIMEOUT_MS);
  app.decorate('gateway', { gate, hosts });
  app.addHook('onClose', async () => {
    health.close();
    await hosts.close();
  });

  metaRoutes(app, d);
  await app.register(async (instance) => mcpRoutes(instance, d, { hosts, health, gate }));
  if (d.oauthRoutes) await app.register(d.oauthRoutes);
  if (dashboard !== undefined) await app.register(async (ui) => dashboardRoutes(ui, dashboard));
  const { events, apiToken, tunnelEvents, accountApi } = d;
  if ((events && apiToken) || tunnelEvents) {
    const accounts = tunnelEvents?.accounts;
    const resolveCaller = createCallerResolver({ apiToken, accounts, sessions: accountApi?.sessions });
    const tunnels = tunnelEvents?.scopes;
    const served = {
      resolveCaller,
      events: apiToken ? events : undefined,
      tunnels,
      routes: accountApi?.routes,
      sessions: accountApi?.sessions,
      relay: accountApi?.relay,
    };
    await app.register(async (api) => apiRoutes(api, served));
  }
  return app;
}
