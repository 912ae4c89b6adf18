/**
 * The gateway's dependency and option shapes: everything `buildApp` needs is passed in, so tests can hand
 * it fakes (a counting verifier, a fake registry) and the process entry (`server.ts`) the real pieces.
 *
 * @module
 */
import type { BucketStore } from '@mcppipe/policy';
import type { PolicyGate } from '@mcppipe/aggregator';
import type { TunnelScopes } from '@mcppipe/events';
import type { AccountStore, BearerVerifier } from '@mcppipe/oauth';
import type { GatewayEvents } from './events/scope.js';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import type { TunnelCluster } from '@mcppipe/tunnel';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionTable } from './api/sessionStore.js';

/** A pino-compatible logger: `logger.warn({ upstream }, 'message')`. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Checks a bearer access token for one resource: `@mcppipe/oauth`'s `BearerVerifier` (the provider's
 * `checkAccessToken`: signature, claims, audience, expiry, revocation). It must not touch disk or bcrypt (G6).
 */
export type TokenVerifier = BearerVerifier;

/** Something that builds one MCP server per request: the hub (`/hub`) or the aggregator (`/mcp`). */
export interface McpEndpoint {
  createServer: McpServerFactory;
}

/** The pipeline stages, in order (DESIGN.md G5), as reported to a {@link PipelineObserver}. */
export type PipelineStage = 'rateLimit' | 'origin' | 'auth' | 'audience' | 'gate' | 'body' | 'route';

/**
 * Called each time a stage handles a request, with its outcome. Tests count these to prove the order
 * (e.g. a request refused by the rate limit never reaches `auth`); production passes none.
 */
export type PipelineObserver = (stage: PipelineStage, outcome: 'pass' | 'reject') => void;

/** Pre-auth rate limit per client IP (`@fastify/rate-limit`, an LRU store). */
export interface RateLimitOptions {
  /** Requests per IP per window. Default 1200. */
  max?: number;
  /** Window length in ms. Default 60 000. */
  timeWindowMs?: number;
  /** Most IPs remembered (idle full buckets evicted first, then the oldest). Default 10 000. */
  cacheSize?: number;
  /**
   * Buckets shared by every node (S2, `RedisBucketStore`): the limit holds for all nodes together. Unset: the
   * in-process `MemoryBucketStore` (at most `cacheSize` IPs).
   */
  shared?: BucketStore;
  /** Called after a refusal was sent (429, or 503 while `shared` is away): the relay records a tunnel's. */
  onRefused?: (req: FastifyRequest, status: 429 | 503) => void;
}

/** Per-client gate (after auth), keyed by the OAuth `client_id`. */
export interface ClientLimitOptions {
  /** Requests per client per minute. Default 600. */
  requestsPerMinute?: number;
  /** Requests of one client in flight at once. Default 16. */
  maxInFlight?: number;
  /** Most clients tracked at once. Default 10 000. */
  tableSize?: number;
}

/** Node HTTP server timeouts, all in ms. */
export interface TimeoutOptions {
  /** Time to receive the request headers. Default 10 000. */
  headersTimeoutMs?: number;
  /** Time to receive the whole request. Default 30 000. */
  requestTimeoutMs?: number;
  /** Socket inactivity timeout. Default 360 000. */
  connectionTimeoutMs?: number;
  /** Idle keep-alive timeout. Default 65 000. */
  keepAliveTimeoutMs?: number;
}

/** Everything {@link buildApp} needs. */
export interface GatewayDeps {
  /** The supervised upstreams (the `Supervisor`); the app never starts or stops it. */
  registry: UpstreamRegistry;
  /** The bearer-token verifier (`@mcppipe/oauth`). */
  verifier: TokenVerifier;
  /** The public base URL (issuer and resource base), canonical: origin only, no trailing slash. */
  publicUrl: string;
  /** Serves `/hub`; absent → `/hub` answers 404. */
  hub?: McpEndpoint;
  /** Serves `/mcp` (the namespaced aggregate); absent → `/mcp` answers 404. */
  aggregate?: McpEndpoint;
  /** The OAuth endpoints (authorize, token, register, metadata), registered as an encapsulated plugin. */
  oauthRoutes?: FastifyPluginAsync;
  /**
   * Builds the RFC 9728 document of one endpoint (the OAuth provider's, so scopes match the authorization
   * server). Default: `resource`, `authorization_servers` and `bearer_methods_supported` only.
   */
  resourceMetadata?: (resourceUrl: string) => object | undefined;
  /** The bind address; on loopback, `Host` and `Origin` are validated (DNS-rebinding protection). */
  host?: string;
  /**
   * Answer each loopback spelling (`127.0.0.1`, `localhost`, `[::1]`, same port) with metadata, challenges
   * and audiences for the name the client used. Only honoured on a loopback bind; set it only when the public
   * URL was not configured explicitly (then `Host` never chooses the base). Default false.
   */
  loopbackAliases?: boolean;
  /** Trusted proxy addresses or CIDRs (Fastify `trustProxy`); never a hop count. Default: none. */
  trustedProxies?: readonly string[];
  /** Extra browser origins allowed on MCP endpoints (the public URL's origin always is). */
  allowedOrigins?: readonly string[];
  /** MCP body cap in bytes (`MCP_BODY_LIMIT`). Default 4 MiB. */
  bodyLimit?: number;
  /** Deepest JSON nesting accepted. Default 100. */
  maxJsonDepth?: number;
  rateLimit?: RateLimitOptions;
  clientLimits?: ClientLimitOptions;
  timeouts?: TimeoutOptions;
  /** Per-server proxy upstream timeout in ms, restarted by progress. Default 300 000. */
  proxyTimeoutMs?: number;
  /**
   * Tool policies and rate limits for the per-server paths (P3): pass the gate the hub and the aggregate were
   * built with, so every endpoint shares rules and buckets. Default: none.
   */
  policy?: PolicyGate;
  /** Logger (default: silent). */
  logger?: Logger;
  /**
   * The tunnel relay's `onRequest` hook (`--tunnel-zone`, DESIGN.md T4): runs right after the rate limit,
   * before the Host guard, CORS and auth, and answers every request addressed to a tunnel itself.
   */
  tunnelHook?: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /**
   * The account side of `/api` when the relay is on (issue 19): the dashboard sessions the caller resolver reads,
   * and the route files (session, keys, settings, exchanges, stats) registered after the one caller hook.
   */
  accountApi?: AccountApi;
  /** The tunnel zone (`--tunnel-zone`): its apex is an allowed `Host` on a loopback bind (the dashboard, D1). */
  tunnelZone?: string;
  /** The built dashboard to serve at `/dashboard/` (DESIGN.md D3). Default: `dist/dashboard` when present. */
  dashboardDir?: string;
  /**
   * Readiness (`/readyz`): resolves when this node can serve, rejects with a typed error (`code`, `message`) when
   * it cannot. Many nodes: one `PING` of the shared Redis store. Default: always ready (one node, the files).
   */
  ready?: () => Promise<void>;
  /** Stage observer for tests. */
  observer?: PipelineObserver;
  /** The events of the configured servers (E1–E4); with `apiToken`, `/api/*` is served. */
  events?: GatewayEvents;
  /** The admin API token (`MCPPIPE_API_TOKEN`): `/api/servers*` and `/api/webhooks*` answer `Bearer <it>`. */
  apiToken?: string;
  /**
   * The relay's per-tunnel event scopes and the accounts whose API keys open `/api/tunnels*` (`--tunnel-zone`, E2).
   */
  tunnelEvents?: { scopes: TunnelScopes; accounts: Pick<AccountStore, 'authenticateKey' | 'hasAccount'> };
  /** Clock for the per-client gate, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** The account side of the one `/api` plugin (issue 19; see `GatewayDeps.accountApi`). */
export interface AccountApi {
  /** The dashboard sessions (cookie `mcppipe_session`). */
  sessions: Pick<SessionTable, 'touch' | 'load'>;
  /** Route registrars, called inside the `/api` plugin after its caller hook. */
  routes: ReadonlyArray<(app: FastifyInstance) => void>;
  /**
   * Many nodes (S2): the cluster and the tunnels' public URL rule, so `/api/tunnels*` answers the tunnels other
   * nodes hold.
   */
  relay?: {
    cluster: TunnelCluster | undefined;
    publicUrl: (subdomain: string, account: string) => string;
  };
}
