import { OWNER_SUBJECT } from './defaults.js';
import { oauthError } from './errors.js';
import { resolveResource, type OAuthContext } from './context.js';
import { signAccessToken } from './accessToken.js';
import { deriveSecret, hashSecret, randomSecret } from './secrets.js';
import type { ClientRecord, FamilyRecord } from './state.js';

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/**
 * Refresh tokens are `<handle>.<secret>`: the handle (128 bits) names the family and appears only in that
 * family's refresh tokens; the secret (256 bits) is what rotates. Storing only hashes of both, the server
 * can tell any earlier token of a family from a guess, so replaying *any* rotated token revokes the family.
 */
function newRefreshToken(handle: string): string {
  return `${handle}.${randomSecret(32)}`;
}

/**
 * The successor of `presented` under a rotation's key: same handle, secret `HMAC-SHA256(key, presented)`.
 * Deterministic, so a retry within the grace window (even after a restart) gets the same refresh token.
 */
function successorOf(presented: string, handle: string, graceKey: string): string {
  return `${handle}.${deriveSecret(graceKey, presented)}`;
}

/**
 * Successor responses of the last rotation, by the hash of the rotated token (memory only; a restart loses
 * it, and the persisted `graceKey` re-derives the same refresh token instead).
 */
export type GraceCache = Map<string, { until: number; response: Promise<TokenResponse> }>;

async function issueAccess(
  ctx: OAuthContext,
  family: FamilyRecord,
  scopes: string[],
): Promise<TokenResponse & { exp: number }> {
  const nowSec = Math.floor(ctx.clock() / 1000);
  const { token, exp } = await signAccessToken(
    ctx.key,
    { sub: family.sub, clientId: family.clientId, scopes, resource: family.resource, familyId: family.id },
    { issuer: ctx.issuer, nowSec, ttlSec: ctx.settings.accessTokenTtlSec },
  );
  family.accessExpiresAt = Math.max(family.accessExpiresAt, exp);
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: ctx.settings.accessTokenTtlSec,
    scope: scopes.join(' '),
    exp,
  };
}

/**
 * Starts a refresh-token family for a redeemed authorization code and issues the first token pair.
 * The family is created synchronously (before any await), then persisted before the response.
 *
 * @param ctx - the context
 * @param client - the client
 * @param grant - scopes and resource of the code
 * @returns the family id and the token response (a pending promise)
 */
export function startFamily(
  ctx: OAuthContext,
  client: ClientRecord,
  grant: { scopes: string[]; resource: string },
): { familyId: string; response: Promise<TokenResponse> } {
  const now = ctx.clock();
  const handle = randomSecret(16);
  const withRefresh = client.grant_types.includes('refresh_token');
  const refresh = newRefreshToken(handle);
  const family: FamilyRecord = {
    id: randomSecret(12),
    handleHash: hashSecret(handle),
    clientId: client.client_id,
    sub: OWNER_SUBJECT,
    scopes: grant.scopes,
    resource: grant.resource,
    createdAt: now,
    currentHash: hashSecret(refresh),
    refreshExpiresAt: withRefresh ? refreshExpiry(ctx, now, now) : now,
    accessExpiresAt: 0,
    status: 'active',
  };
  ctx.store.state.families[family.id] = family;
  const response = (async () => {
    const { exp: _exp, ...access } = await issueAccess(ctx, family, grant.scopes);
    await ctx.store.persist();
    return withRefresh ? { ...access, refresh_token: refresh } : access;
  })();
  return { familyId: family.id, response };
}

function refreshExpiry(ctx: OAuthContext, now: number, createdAt: number): number {
  const { refreshIdleTtlSec, refreshMaxTtlSec } = ctx.settings;
  return Math.min(now + refreshIdleTtlSec * 1000, createdAt + refreshMaxTtlSec * 1000);
}

function findFamilyByHandle(ctx: OAuthContext, handleHash: string): FamilyRecord | undefined {
  for (const f of Object.values(ctx.store.state.families)) if (f.handleHash === handleHash) return f;
  return undefined;
}

/**
 * Revokes a family: its refresh token stops working at once and its access tokens are refused by
 * `verifyAccessToken` (the family's status is the in-memory revocation marker).
 *
 * @param ctx - the context
 * @param family - the family
 * @param reason - logged
 */
export function revokeFamily(ctx: OAuthContext, family: FamilyRecord, reason: string): void {
  if (family.status === 'revoked') return;
  family.status = 'revoked';
  family.revokedAt = ctx.clock();
  family.revokedReason = reason;
  ctx.logger.warn(
    { familyId: family.id, clientId: family.clientId, reason },
    'revoked a refresh-token family',
  );
  ctx.emit({ type: 'family_revoked', clientId: family.clientId, reason });
}

/**
 * The refresh grant with rotation (RFC 9700 §4.14.2). The presented token must be the family's current one.
 * Its immediate predecessor, presented by the same client within the grace window, returns the same
 * successor pair. Any other earlier token of the family is reuse: the whole family is revoked.
 * A refresh may narrow but never widen the scope, and never change the resource.
 *
 * @param ctx - the context
 * @param params - the authenticated client, `refresh_token`, optional `scope` and `resource`
 * @param grace - the grace cache
 * @returns the token response
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_grant`, `invalid_scope`, `invalid_target`)
 */
export function refreshTokens(
  ctx: OAuthContext,
  params: {
    client: ClientRecord;
    refreshToken: string;
    scope?: string | undefined;
    resource?: string | undefined;
  },
  grace: GraceCache,
): Promise<TokenResponse> {
  const { client } = params;
  const now = ctx.clock();
  const dot = params.refreshToken.indexOf('.');
  const family = dot > 0 ? findFamilyByHandle(ctx, hashSecret(params.refreshToken.slice(0, dot))) : undefined;
  if (!family || family.clientId !== client.client_id || !client.grant_types.includes('refresh_token')) {
    throw oauthError('invalid_grant', 'unknown refresh token');
  }
  if (family.status === 'revoked') throw oauthError('invalid_grant', 'the refresh token was revoked');
  const presented = hashSecret(params.refreshToken);
  const scopes = params.scope === undefined ? family.scopes : params.scope.split(' ').filter(Boolean);
  if (scopes.length === 0 || scopes.some((s) => !family.scopes.includes(s))) {
    throw oauthError('invalid_scope', 'a refresh cannot widen the scope');
  }
  if (params.resource !== undefined && resolveResource(ctx, params.resource) !== family.resource) {
    throw oauthError('invalid_target', 'a refresh cannot change the resource');
  }
  if (presented !== family.currentHash) {
    const inGrace =
      presented === family.previousHash &&
      family.rotatedAt !== undefined &&
      now - family.rotatedAt <= ctx.settings.refreshGraceMs;
    const cached = grace.get(presented);
    if (inGrace && cached && cached.until >= now) return cached.response;
    if (inGrace && family.graceKey !== undefined) {
      // B6: the rotation was persisted but its answer was lost (a crash, a restart): hand out the same
      // successor again, with a fresh access token. Only while the successor is still the current token.
      const again = successorOf(params.refreshToken, params.refreshToken.slice(0, dot), family.graceKey);
      if (hashSecret(again) === family.currentHash) {
        const response = (async () => {
          const { exp: _exp, ...access } = await issueAccess(ctx, family, scopes);
          await ctx.store.persist();
          return { ...access, refresh_token: again };
        })();
        grace.set(presented, { until: family.rotatedAt! + ctx.settings.refreshGraceMs, response });
        return response;
      }
    }
    revokeFamily(ctx, family, 'refresh token reuse');
    void ctx.store.persist().catch(() => undefined);
    throw oauthError('invalid_grant', 'the refresh token was already used; the session is revoked');
  }
  if (family.refreshExpiresAt <= now) throw oauthError('invalid_grant', 'the refresh token expired');
  if (!ctx.resources().has(family.resource))
    throw oauthError('invalid_target', 'the resource is no longer served');

  // Rotate synchronously; sign and persist afterwards. Roll back if the write fails.
  const before = {
    currentHash: family.currentHash,
    previousHash: family.previousHash,
    rotatedAt: family.rotatedAt,
    graceKey: family.graceKey,
    refreshExpiresAt: family.refreshExpiresAt,
  };
  const handle = params.refreshToken.slice(0, dot);
  const graceKey = randomSecret(32);
  const next = successorOf(params.refreshToken, handle, graceKey);
  family.previousHash = presented;
  family.currentHash = hashSecret(next);
  family.rotatedAt = now;
  family.graceKey = graceKey;
  family.refreshExpiresAt = refreshExpiry(ctx, now, family.createdAt);
  for (const [h, entry] of grace) if (entry.until < now) grace.delete(h);
  const response = (async () => {
    try {
      const { exp: _exp, ...access } = await issueAccess(ctx, family, scopes);
      await ctx.store.persist();
      return { ...access, refresh_token: next };
    } catch (err) {
      grace.delete(presented);
      if (family.currentHash === hashSecret(next)) Object.assign(family, before);
      throw err;
    }
  })();
  grace.set(presented, { until: now + ctx.settings.refreshGraceMs, response });
  return response;
}
