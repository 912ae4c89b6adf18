/**
 * The OAuth endpoints of the gateway as one encapsulated Fastify plugin over `@mcppipe/oauth`:
 * RFC 8414 metadata (and the OpenID-configuration alias), JWKS, RFC 9728 metadata per resource, `/register`,
 * `/authorize` with its login and approval forms, `/token`, `/revoke`. Per-endpoint rate limits per client
 * IP; CORS on metadata, token, registration and revocation, never on the authorization endpoint.
 *
 * @module
 */
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import {
  OAUTH_PATHS,
  type OAuthHttpRequest,
  type OAuthHttpResponse,
  type OAuthProvider,
} from '@mcppipe/oauth';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrorHandler, preflight, sendOAuthResponse, toOAuthRequest } from './adapter.js';

/** The rate-limited endpoint groups. */
export type OAuthEndpointGroup = 'metadata' | 'register' | 'authorize' | 'token' | 'revoke';

/** A limit: `max` requests per client IP per `timeWindowMs`. */
export interface OAuthRateLimit {
  max: number;
  timeWindowMs: number;
}

/** Options of {@link oauthRoutes}. */
export interface OAuthRoutesOptions {
  /**
   * Per-endpoint limits per client IP. Defaults: metadata 300/min, register 20/h, authorize (page and
   * forms) 100/15 min, token 300/15 min, revoke 100/15 min. Login attempts are throttled separately.
   */
  rateLimits?: Partial<Record<OAuthEndpointGroup, OAuthRateLimit>>;
  /**
   * Serve `/.well-known/oauth-protected-resource/*` for every resource of the provider. Default true; a host
   * that serves these documents itself may turn it off (its static routes win anyway).
   */
  protectedResourceMetadata?: boolean;
  /**
   * Answer CORS here with `Access-Control-Allow-Origin: *` (metadata, token, registration, revocation).
   * Default true; the gateway turns it off because its root CORS hook applies the configured origin list.
   */
  cors?: boolean;
}

/** Default limits (the SDK's auth router uses 20/h for register, 50–100/15 min elsewhere). */
export const DEFAULT_OAUTH_RATE_LIMITS: Readonly<Record<OAuthEndpointGroup, OAuthRateLimit>> = {
  metadata: { max: 300, timeWindowMs: 60_000 },
  register: { max: 20, timeWindowMs: 3_600_000 },
  authorize: { max: 100, timeWindowMs: 900_000 },
  token: { max: 300, timeWindowMs: 900_000 },
  revoke: { max: 100, timeWindowMs: 900_000 },
};

const FORM_LIMIT_BYTES = 16 * 1024;
const REGISTER_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the plugin. Register it with plain `app.register(oauthRoutes(provider))` (encapsulated: its body
 * parsers, error handler and limits stay inside).
 *
 * @param provider - the authorization server
 * @param options - rate limits and metadata routes
 * @returns the plugin
 * @example Mounting the endpoints
 * ```ts
 * const provider = await createOAuthProvider({ dataDir, publicUrl, resources, adminPasswordHash });
 * await app.register(oauthRoutes(provider));
 * ```
 */
export function oauthRoutes(provider: OAuthProvider, options: OAuthRoutesOptions = {}): FastifyPluginAsync {
  const limits = { ...DEFAULT_OAUTH_RATE_LIMITS, ...options.rateLimits };
  const anyOrigin = options.cors !== false;
  return async (app: FastifyInstance) => {
    await app.register(rateLimit, { global: false });
    if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
      await app.register(formbody, { bodyLimit: FORM_LIMIT_BYTES });
    }
    app.setErrorHandler(oauthErrorHandler);
    const e = provider.endpoints;
    const limit = (g: OAuthEndpointGroup) => ({
      rateLimit: { max: limits[g].max, timeWindow: limits[g].timeWindowMs },
    });
    type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
    const cors = (
      group: OAuthEndpointGroup,
      route: { method: 'GET' | 'POST'; url: string; handler: Handler },
    ) => {
      app.route({ ...route, config: limit(group), bodyLimit: REGISTER_LIMIT_BYTES });
      if (anyOrigin)
        app.route({ method: 'OPTIONS', url: route.url, config: limit(group), handler: preflight });
    };

    const asMeta: Handler = async (_req, reply) =>
      sendOAuthResponse(reply, e.authorizationServerMetadata(), anyOrigin);
    cors('metadata', { method: 'GET', url: OAUTH_PATHS.authorizationServerMetadata, handler: asMeta });
    cors('metadata', { method: 'GET', url: OAUTH_PATHS.openidConfiguration, handler: asMeta });
    cors('metadata', {
      method: 'GET',
      url: OAUTH_PATHS.jwks,
      handler: async (_req, reply) => sendOAuthResponse(reply, e.jwks(), anyOrigin),
    });
    if (options.protectedResourceMetadata !== false) {
      cors('metadata', {
        method: 'GET',
        url: `${OAUTH_PATHS.protectedResourcePrefix}/*`,
        handler: async (req, reply) => {
          const path = `/${(req.params as { '*': string })['*']}`;
          return sendOAuthResponse(reply, e.protectedResourceMetadata(path), anyOrigin);
        },
      });
    }
    const post = (
      group: OAuthEndpointGroup,
      url: string,
      run: (r: OAuthHttpRequest) => Promise<OAuthHttpResponse>,
    ) =>
      cors(group, {
        method: 'POST',
        url,
        handler: async (req, reply) => sendOAuthResponse(reply, await run(toOAuthRequest(req)), anyOrigin),
      });
    post('register', OAUTH_PATHS.register, (r) => e.register(r));
    post('token', OAUTH_PATHS.token, (r) => e.token(r));
    post('revoke', OAUTH_PATHS.revoke, (r) => e.revoke(r));

    // The authorization endpoint and its forms: no CORS (RFC 9700 §2.6).
    const form = { config: limit('authorize'), bodyLimit: FORM_LIMIT_BYTES };
    app.get(OAUTH_PATHS.authorize, { config: limit('authorize') }, async (req, reply) =>
      sendOAuthResponse(reply, e.authorize(toOAuthRequest(req))),
    );
    app.post(OAUTH_PATHS.login, form, async (req, reply) =>
      sendOAuthResponse(reply, await e.login(toOAuthRequest(req))),
    );
    app.post(OAUTH_PATHS.consent, form, async (req, reply) =>
      sendOAuthResponse(reply, await e.consent(toOAuthRequest(req))),
    );
  };
}
