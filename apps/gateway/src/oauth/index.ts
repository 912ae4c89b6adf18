/**
 * The gateway's OAuth endpoints (a Fastify plugin over `@mcppipe/oauth`).
 *
 * @module
 */
export { oauthRoutes, DEFAULT_OAUTH_RATE_LIMITS } from './routes.js';
export type { OAuthEndpointGroup, OAuthRateLimit, OAuthRoutesOptions } from './routes.js';
