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

/**
 * Signs an access token of a family and raises the family's `accessExpiresAt` to its `exp`.
 *
 * @param ctx - the context
 * @param family - the family (its `accessExpiresAt` is updated in place)
 * @param issue - `scopes` of the token; `nowSec`: the issue time, epoch seconds (default: now)
 * @returns the token response without a refresh token, and `exp`
 */
export async function issueAccess(
  ctx: OAuthContext,
  family: FamilyRecord,
  { scopes, nowSec = Math.floor(ctx.clock() / 1000) }: { scopes: string[]; nowSec?: number },
): Promise<TokenResponse & { exp: number }> {
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
  const { shared } = ctx;
  const response = (async () => {
    const { exp: _exp, ...access } = await issueAccess(ctx, family, { scopes: grant.scopes });
    if (shared) await shared.putFamily(family, familyTtlMs(ctx, family, now));
    else await ctx.store.persist();
    return withRefresh ? { ...access, refresh_token: refresh } : access;
  })();
  return { familyId: family.id, response };
}

/**
 * How long a family is kept in the shared store: until no refresh token and no access token of it can be valid
 * (its absolute refresh limit plus one access-token lifetime), so Redis forgets it without pruning.
 *
 * @param ctx - the context (settings)
 * @param family - the family
 * @param now - epoch ms
 * @returns milliseconds, at least 1000
 */
export function familyTtlMs(ctx: OAuthContext, family: FamilyRecord, now: number): number {
  const { refreshMaxTtlSec, accessTokenTtlSec } = ctx.settings;
  return Math.max(1000, family.createdAt + (refreshMaxTtlSec + accessTokenTtlSec) * 1000 - now);
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
 * The fields a revocation sets.
 *
 * @param now - epoch ms
 * @param reason - why (logged and stored)
 * @returns `status`, `revokedAt`, `revokedReason`
 */
export function revokedFields(
  now: number,
  reason: string,
): Pick<FamilyRecord, 'status' | 'revokedAt' | 'revokedReason'> {
  return { status: 'revoked', revokedAt: now, revokedReason: reason };
}

/**
 * Logs and emits a family's revocation (no secrets: the family and client ids only).
 *
 * @param ctx - the context
 * @param family - the revoked family
 * @param reason - why
 */
export function reportRevoked(ctx: OAuthContext, family: FamilyRecord, reason: string): void {
  ctx.logger.warn(
    { familyId: family.id, clientId: family.clientId, reason },
    'revoked a refresh-token family',
  );
  ctx.emit({ type: 'family_revoked', clientId: family.clientId, reason });
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
  Object.assign(family, revokedFields(ctx.clock(), reason));
  reportRevoked(ctx, family, reason);
}

/** The parameters of a refresh request. */
export interface RefreshParams {
  client: ClientRecord;
  refreshToken: string;
  scope?: string | undefined;
  resource?: string | undefined;
}

/**
 * What the family rule (G2, RFC 9700 §4.14.2) decides for a presented refresh token: `rotate` (it is the current
 * one: the new fields are in `rotation`), `again` (the immediate predecessor within the grace window: `next` is
 * the same successor again, when it is still the current token), or `reuse` (any other earlier token: the family
 * must be revoked). Pure: both the one-node path and the shared path (inside an atomic update) use it.
 */
export type RefreshDecision = { family: FamilyRecord; presented: string } & (
  | {
      kind: 'rotate';
      scopes: string[];
      next: string;
      rotation: Pick<
        FamilyRecord,
        'currentHash' | 'previousHash' | 'rotatedAt' | 'graceKey' | 'refreshExpiresAt'
      >;
    }
  | { kind: 'again'; scopes: string[]; next: string | undefined }
  | { kind: 'reuse' }
);

/** The answer to a reused refresh token (its family is revoked). */
export const reuseError = () =>
  oauthError('invalid_grant', 'the refresh token was already used; the session is revoked');

/**
 * Applies the family rule to a presented refresh token (no side effects, so it may run again after a lost race).
 *
 * @param ctx - the context (settings, resources)
 * @param family - the family the token's handle names, or undefined
 * @param params - the authenticated client, the token, optional `scope` and `resource`; `now` (epoch ms) and
 *   `graceKey`, the key of a rotation made now (random, made by the caller once, reused when it runs again)
 * @returns the decision
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_grant`, `invalid_scope`, `invalid_target`)
 */
export function decideRefresh(
  ctx: OAuthContext,
  family: FamilyRecord | undefined,
  params: RefreshParams & { now: number; graceKey: string },
): RefreshDecision {
  const { client, refreshToken, now, graceKey } = params;
  if (!family || family.clientId !== client.client_id || !client.grant_types.includes('refresh_token')) {
    throw oauthError('invalid_grant', 'unknown refresh token');
  }
  if (family.status === 'revoked') throw oauthError('invalid_grant', 'the refresh token was revoked');
  const presented = hashSecret(refreshToken);
  const scopes = params.scope === undefined ? family.scopes : params.scope.split(' ').filter(Boolean);
  if (scopes.length === 0 || scopes.some((s) => !family.scopes.includes(s))) {
    throw oauthError('invalid_scope', 'a refresh cannot widen the scope');
  }
  if (params.resource !== undefined && resolveResource(ctx, params.resource) !== family.resource) {
    throw oauthError('invalid_target', 'a refresh cannot change the resource');
  }
  const handle = refreshToken.slice(0, refreshToken.indexOf('.'));
  if (presented !== family.currentHash) {
    const inGrace =
      presented === family.previousHash &&
      family.rotatedAt !== undefined &&
      ctx.settings.refreshGraceMs > 0 && // 0: no grace window at all, even within the same millisecond
      now - family.rotatedAt <= ctx.settings.refreshGraceMs;
    if (!inGrace) return { kind: 'reuse', family, presented };
    // B6: the rotation was persisted but its answer was lost (a crash, a restart, another node): the same
    // successor again, with a fresh access token. Only while the successor is still the current token.
    const again =
      family.graceKey === undefined ? undefined : successorOf(refreshToken, handle, family.graceKey);
    const next = again !== undefined && hashSecret(again) === family.currentHash ? again : undefined;
    return { kind: 'again', family, presented, scopes, next };
  }
  if (family.refreshExpiresAt <= now) throw oauthError('invalid_grant', 'the refresh token expired');
  if (!ctx.resources().has(family.resource))
    throw oauthError('invalid_target', 'the resource is no longer served');
  const next = successorOf(refreshToken, handle, graceKey);
  const rotation = {
    previousHash: presented,
    currentHash: hashSecret(next),
    rotatedAt: now,
    graceKey,
    refreshExpiresAt: refreshExpiry(ctx, now, family.createdAt),
  };
  return { kind: 'rotate', family, presented, scopes, next, rotation };
}

/**
 * The refresh grant with rotation (RFC 9700 §4.14.2) on one node: {@link decideRefresh} on the in-memory state.
 * The presented token must be the family's current one. Its immediate predecessor, presented by the same client
 * within the grace window, returns the same successor pair. Any other earlier token of the family is reuse: the
 * whole family is revoked. A refresh may narrow but never widen the scope, and never change the resource.
 *
 * @param ctx - the context
 * @param params - the authenticated client, `refresh_token`, optional `scope` and `resource`
 * @param grace - the grace cache
 * @returns the token response
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_grant`, `invalid_scope`, `invalid_target`)
 */
export function refreshTokens(
  ctx: OAuthContext,
  params: RefreshParams,
  grace: GraceCache,
): Promise<TokenResponse> {
  const now = ctx.clock();
  const dot = params.refreshToken.indexOf('.');
  const found = dot > 0 ? findFamilyByHandle(ctx, hashSecret(params.refreshToken.slice(0, dot))) : undefined;
  const d = decideRefresh(ctx, found, { ...params, now, graceKey: randomSecret(32) });
  const { family, presented } = d;
  if (d.kind === 'again') {
    const cached = grace.get(presented);
    if (cached && cached.until >= now) return cached.response;
    const again = d.next;
    if (again !== undefined) {
      const response = (async () => {
        const { exp: _exp, ...access } = await issueAccess(ctx, family, { scopes: d.scopes });
        await ctx.store.persist();
        return { ...access, refresh_token: again };
      })();
      grace.set(presented, { until: family.rotatedAt! + ctx.settings.refreshGraceMs, response });
      return response;
    }
  }
  if (d.kind !== 'rotate') {
    revokeFamily(ctx, family, 'refresh token reuse');
    void ctx.store.persist().catch(() => undefined);
    throw reuseError();
  }

  // Rotate synchronously; sign and persist afterwards. Roll back if the write fails.
  const before = {
    currentHash: family.currentHash,
    previousHash: family.previousHash,
    rotatedAt: family.rotatedAt,
    graceKey: family.graceKey,
    refreshExpiresAt: family.refreshExpiresAt,
  };
  const { next } = d;
  Object.assign(family, d.rotation);
  for (const [h, entry] of grace) if (entry.until < now) grace.delete(h);
  const response = (async () => {
    try {
      const { exp: _exp, ...access } = await issueAccess(ctx, family, { scopes: d.scopes });
      await ctx.store.persist();
      return { ...access, refresh_token: next };
    } catch (err) {
      grace.delete(presented);
      if (family.currentHash === d.rotation.currentHash) Object.assign(family, before);
      throw err;
    }
  })();
  grace.set(presented, { until: now + ctx.settings.refreshGraceMs, response });
  return response;
}
