import {
  checkAccessTokenSignature,
  type AuthInfo,
  type VerifiedClaims,
  type VerifyOptions,
} from './accessToken.js';
import type { OAuthContext } from './context.js';
import { MAX_ACCESS_TOKEN_LENGTH } from './defaults.js';
import { invalidToken } from './errors.js';
import { normalizeResource, protectedResourceMetadataUrl } from './resource.js';
import type { VerifiedTokenCache } from './tokenCache.js';

/** The outcome of {@link checkAccessToken}: the auth info, or why the token was refused (for logs only). */
export type TokenCheck = { ok: true; authInfo: AuthInfo } | { ok: false; reason: string };

/** What verification keeps between calls (one per provider). */
export interface VerifierState {
  /** The provider's context (key, issuer, clock, state). */
  readonly ctx: OAuthContext;
  /** The verified-token cache (signature and claim checks, keyed by the token's SHA-256). */
  readonly cache: VerifiedTokenCache;
  /** Expected resource as given → its canonical form (bounded: cleared when full). */
  readonly audiences: Map<string, string | undefined>;
  /** The signature and claim checks (tests inject a counting one). */
  readonly checkSignature: (
    key: OAuthContext['key'],
    token: string,
    options: VerifyOptions,
  ) => Promise<VerifiedClaims | { reason: string }>;
}

/** Most distinct expected-resource strings whose canonical form is remembered. */
const MAX_AUDIENCE_MEMO = 1024;
/** Tokens worth a cache lookup: compact JWS only (ASCII, so the hashed bytes are the token's characters). */
const CACHEABLE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Creates the verification state of a provider.
 *
 * @param ctx - the provider's context
 * @param cache - the verified-token cache (`maxEntries` 0 disables it)
 * @param checkSignature - the signature and claim checks; default {@link checkAccessTokenSignature}
 * @returns the state
 */
export function createVerifierState(
  ctx: OAuthContext,
  cache: VerifiedTokenCache,
  checkSignature: VerifierState['checkSignature'] = checkAccessTokenSignature,
): VerifierState {
  return { ctx, cache, audiences: new Map(), checkSignature };
}

function canonicalAudience(state: VerifierState, expectedResource: string): string | undefined {
  if (state.audiences.has(expectedResource)) return state.audiences.get(expectedResource);
  const audience = normalizeResource(expectedResource);
  if (state.audiences.size >= MAX_AUDIENCE_MEMO) state.audiences.clear();
  state.audiences.set(expectedResource, audience);
  return audience;
}

/**
 * Checks an access token for one resource without throwing for an invalid one: the signature and claims
 * (see `checkAccessTokenSignature`; remembered in the verified-token cache for the exact token bytes), then,
 * on every call, cached or not: the audience asked for, and the in-memory revocation markers: the client
 * must still be registered, the token's refresh-token family must exist and be active, and its `jti` must not
 * be revoked. Expiry is part of the cache entry's validity (`exp` plus the skew). No disk, no network.
 *
 * @param state - the provider's verification state (and context)
 * @param token - the bearer token
 * @param expectedResource - the endpoint's resource URL (its canonical form is compared with `aud`)
 * @returns the SDK-shaped `AuthInfo`, or the reason for refusing
 */
export async function checkAccessToken(
  state: VerifierState,
  token: string,
  expectedResource: string,
): Promise<TokenCheck> {
  const { ctx } = state;
  const audience = canonicalAudience(state, expectedResource);
  if (audience === undefined)
    return { ok: false, reason: 'the expected resource is not a valid resource URL' };
  const nowMs = ctx.clock();
  const { cache } = state;
  let key: string | undefined;
  let claims: VerifiedClaims | undefined;
  if (cache.enabled && token.length <= MAX_ACCESS_TOKEN_LENGTH && CACHEABLE.test(token)) {
    key = cache.keyOf(token);
    claims = cache.get(key, nowMs);
    if (claims !== undefined && claims.audience !== audience) return { ok: false, reason: 'unexpected aud' };
  }
  if (claims === undefined) {
    const result = await state.checkSignature(ctx.key, token, { issuer: ctx.issuer, audience, nowMs });
    if ('reason' in result) return { ok: false, reason: result.reason };
    claims = result;
    if (key !== undefined) cache.set(key, claims, nowMs);
  }
  const { state: s } = ctx.store;
  if (!Object.hasOwn(s.clients, claims.clientId)) return { ok: false, reason: 'unknown client' };
  const family = Object.hasOwn(s.families, claims.familyId) ? s.families[claims.familyId] : undefined;
  if (!family || family.status !== 'active' || family.clientId !== claims.clientId)
    return { ok: false, reason: 'revoked' };
  if (Object.hasOwn(s.revokedTokens, claims.jti)) return { ok: false, reason: 'revoked' };
  return {
    ok: true,
    authInfo: {
      token,
      clientId: claims.clientId,
      scopes: [...claims.scopes],
      expiresAt: claims.exp,
      resource: new URL(claims.audience),
      extra: { sub: claims.sub, jti: claims.jti, familyId: claims.familyId },
    },
  };
}

/**
 * Verifies an access token for one resource: {@link checkAccessToken}, throwing when the token is refused.
 *
 * @param state - the provider's verification state (and context)
 * @param token - the bearer token
 * @param expectedResource - the endpoint's resource URL (its canonical form is compared with `aud`)
 * @returns the SDK-shaped `AuthInfo`
 * @throws McpPipeError `MCPP_OAUTH_INVALID_TOKEN`
 */
export async function verifyAccessToken(
  state: VerifierState,
  token: string,
  expectedResource: string,
): Promise<AuthInfo> {
  const result = await checkAccessToken(state, token, expectedResource);
  if (!result.ok) throw invalidToken(result.reason);
  return result.authInfo;
}

/** The outcome of {@link authenticateBearer}. */
export type BearerResult =
  | { ok: true; authInfo: AuthInfo }
  | { ok: false; status: 401; wwwAuthenticate: string; error?: 'invalid_token' };

/**
 * Builds a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1) naming the resource's metadata.
 *
 * @param resourceUrl - the endpoint's resource URL
 * @param error - `invalid_token`, or omitted for a request without credentials
 * @returns the header value
 * @example
 * ```ts
 * bearerChallenge('https://gw.example/hub', 'invalid_token');
 * // 'Bearer error="invalid_token", resource_metadata="https://gw.example/.well-known/oauth-protected-resource/hub", scope="mcp"'
 * ```
 */
export function bearerChallenge(resourceUrl: string, error?: 'invalid_token'): string {
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(resourceUrl)}"`, 'scope="mcp"'];
  if (error) parts.unshift(`error="${error}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * The pipeline step "bearer verification + resource check" (G5): reads `Authorization: Bearer …` only
 * (never `?access_token=`), verifies it for `resourceUrl`, and on failure gives the 401 challenge to send:
 * without `error` when no bearer token was sent, with `error="invalid_token"` otherwise.
 *
 * @param state - the provider's verification state (and context)
 * @param authorization - the `Authorization` header
 * @param resourceUrl - the endpoint's resource URL
 * @returns the auth info, or the 401 to answer with
 */
export async function authenticateBearer(
  state: VerifierState,
  authorization: string | undefined,
  resourceUrl: string,
): Promise<BearerResult> {
  if (!authorization || !/^bearer(?: |$)/i.test(authorization)) {
    return { ok: false, status: 401, wwwAuthenticate: bearerChallenge(resourceUrl) };
  }
  const token = authorization.slice(6).trim();
  const result = await checkAccessToken(state, token, resourceUrl);
  if (result.ok) return { ok: true, authInfo: result.authInfo };
  state.ctx.logger.debug({ reason: result.reason }, 'refused an access token');
  return {
    ok: false,
    status: 401,
    error: 'invalid_token',
    wwwAuthenticate: bearerChallenge(resourceUrl, 'invalid_token'),
  };
}
