import { isMcpPipeError } from '@mcppipe/errors';
import { verifyAccessTokenSignature, type AuthInfo } from './accessToken.js';
import type { OAuthContext } from './context.js';
import { invalidToken } from './errors.js';
import { normalizeResource, protectedResourceMetadataUrl } from './resource.js';

/**
 * Verifies an access token for one resource: the signature and claims (see `verifyAccessTokenSignature`),
 * then the in-memory revocation markers: the client must still be registered, the token's refresh-token
 * family must exist and be active, and its `jti` must not be revoked. No disk, no network.
 *
 * @param ctx - the context
 * @param token - the bearer token
 * @param expectedResource - the endpoint's resource URL (its canonical form is compared with `aud`)
 * @returns the SDK-shaped `AuthInfo`
 * @throws McpPipeError `MCPP_OAUTH_INVALID_TOKEN`
 */
export async function verifyAccessToken(
  ctx: OAuthContext,
  token: string,
  expectedResource: string,
): Promise<AuthInfo> {
  const audience = normalizeResource(expectedResource);
  if (audience === undefined) throw invalidToken('the expected resource is not a valid resource URL');
  const claims = await verifyAccessTokenSignature(ctx.key, token, {
    issuer: ctx.issuer,
    audience,
    nowMs: ctx.clock(),
  });
  const { state } = ctx.store;
  if (!Object.hasOwn(state.clients, claims.clientId)) throw invalidToken('unknown client');
  const family = Object.hasOwn(state.families, claims.familyId) ? state.families[claims.familyId] : undefined;
  if (!family || family.status !== 'active' || family.clientId !== claims.clientId)
    throw invalidToken('revoked');
  if (Object.hasOwn(state.revokedTokens, claims.jti)) throw invalidToken('revoked');
  return {
    token,
    clientId: claims.clientId,
    scopes: claims.scopes,
    expiresAt: claims.exp,
    resource: new URL(claims.audience),
    extra: { sub: claims.sub, jti: claims.jti, familyId: claims.familyId },
  };
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
 * @param ctx - the context
 * @param authorization - the `Authorization` header
 * @param resourceUrl - the endpoint's resource URL
 * @returns the auth info, or the 401 to answer with
 */
export async function authenticateBearer(
  ctx: OAuthContext,
  authorization: string | undefined,
  resourceUrl: string,
): Promise<BearerResult> {
  if (!authorization || !/^bearer(?: |$)/i.test(authorization)) {
    return { ok: false, status: 401, wwwAuthenticate: bearerChallenge(resourceUrl) };
  }
  const token = authorization.slice(6).trim();
  try {
    return { ok: true, authInfo: await verifyAccessToken(ctx, token, resourceUrl) };
  } catch (err) {
    if (!isMcpPipeError(err, 'MCPP_OAUTH_INVALID_TOKEN')) throw err;
    ctx.logger.debug(
      { reason: (err.data as { reason?: string } | undefined)?.reason },
      'refused an access token',
    );
    return {
      ok: false,
      status: 401,
      error: 'invalid_token',
      wwwAuthenticate: bearerChallenge(resourceUrl, 'invalid_token'),
    };
  }
}
