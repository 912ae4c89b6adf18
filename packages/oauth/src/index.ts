/**
 * `@mcppipe/oauth`: An OAuth 2.1 authorization server core: clients, password login, approvals, EdDSA JWTs,
 * refresh-token families, state on disk. Framework-free; `@mcppipe/gateway` maps it onto Fastify routes.
 * Every export here is public API.
 *
 * @module
 */
export { createOAuthProvider } from './provider.js';
export type { OAuthEndpoints, OAuthProvider } from './provider.js';
export type { OAuthProviderOptions } from './options.js';
export type { AuthInfo } from './accessToken.js';
export type {
  BearerRefusal,
  BearerResult,
  BearerTarget,
  BearerTargetOptions,
  BearerVerifier,
  TokenCheck,
} from './verify.js';
export { authenticateBearer, bearerChallenge, bearerTarget } from './verify.js';
export { hashPassword } from './password.js';
export { sha256 } from './secrets.js';
export { ACCOUNTS_FILE, AccountStore } from './accounts.js';
export type { AccountRecord, ApiKeyRecord } from './accounts.js';
export type { ResourceOwners } from './authorizeFlow.js';
export { authorizationServerMetadata, protectedResourceMetadata, OAUTH_PATHS } from './metadata.js';
export type { AuthorizationServerMetadata, ProtectedResourceMetadata } from './metadata.js';
export { normalizeResource, protectedResourceMetadataUrl } from './resource.js';
export { checkRedirectUri, matchRedirectUri } from './redirectUri.js';
export type { RedirectUriCheck } from './redirectUri.js';
export type { OAuthHttpRequest, OAuthHttpResponse } from './http.js';
export type { OAuthErrorCode, OAuthErrorData, InvalidTokenData } from './errors.js';
export type { Logger } from './logger.js';
export type { OAuthEvent, OAuthEventListener } from './events.js';
export { KEY_FILE } from './keys.js';
export { STATE_FILE } from './stateStore.js';
