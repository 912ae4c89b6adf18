/**
 * Refresh-token families on the shared store of many nodes (DESIGN.md S1, G2): the rotation and the revocation
 * are decided on the Redis entry with one atomic `update` (compare-and-swap, re-decided after a lost race), so two
 * nodes presenting the same refresh token at once cannot both rotate it. The rule itself is `decideRefresh`, the
 * same as on one node.
 *
 * @module
 */
import type { OAuthContext } from './context.js';
import { oauthError } from './errors.js';
import {
  decideRefresh,
  familyTtlMs,
  issueAccess,
  reportRevoked,
  revokedFields,
  reuseError,
  type RefreshDecision,
  type RefreshParams,
  type TokenResponse,
} from './families.js';
import { hashSecret, randomSecret } from './secrets.js';
import type { SharedOAuthState } from './sharedState.js';
import type { FamilyRecord } from './state.js';

/**
 * The refresh grant on the shared store. Exactly one of any number of concurrent requests with the current
 * refresh token rotates it (on any node); the others then see the rotation and get G2's answer for the
 * immediate predecessor: the same successor within the grace window, else `invalid_grant` with the family
 * revoked (every node then refuses its refresh and access tokens).
 *
 * @param ctx - the context
 * @param shared - the shared state
 * @param params - the authenticated client, `refresh_token`, optional `scope` and `resource`
 * @returns the token response
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_grant`, `invalid_scope`, `invalid_target`);
 *   `MCPP_STORE_UNAVAILABLE` / `MCPP_STORE_CONFLICT` from the store
 */
export async function refreshShared(
  ctx: OAuthContext,
  shared: SharedOAuthState,
  params: RefreshParams,
): Promise<TokenResponse> {
  const now = ctx.clock();
  const nowSec = Math.floor(now / 1000);
  const exp = nowSec + ctx.settings.accessTokenTtlSec;
  const dot = params.refreshToken.indexOf('.');
  const id = dot > 0 ? await shared.familyIdOf(hashSecret(params.refreshToken.slice(0, dot))) : undefined;
  if (id === undefined) throw oauthError('invalid_grant', 'unknown refresh token');
  const graceKey = randomSecret(32);
  const outcome = await shared.families.update<{ d: RefreshDecision; value: FamilyRecord }>(id, (current) => {
    const d = decideRefresh(ctx, current, { ...params, now, graceKey });
    const f = d.family;
    const accessExpiresAt = Math.max(f.accessExpiresAt, exp);
    const value: FamilyRecord =
      d.kind === 'rotate'
        ? { ...f, ...d.rotation, accessExpiresAt }
        : d.kind === 'again' && d.next !== undefined
          ? { ...f, accessExpiresAt }
          : { ...f, ...revokedFields(now, 'refresh token reuse') };
    return { op: 'set', value, ttlMs: familyTtlMs(ctx, value, now), result: { d, value } };
  });
  const { d, value } = outcome!;
  await shared.changedFamily(value);
  if (d.kind === 'reuse' || (d.kind === 'again' && d.next === undefined)) {
    reportRevoked(ctx, value, 'refresh token reuse');
    throw reuseError();
  }
  const next = d.next!;
  const { exp: _exp, ...access } = await issueAccess(ctx, { ...value }, { scopes: d.scopes, nowSec });
  return { ...access, refresh_token: next };
}

/**
 * Revokes a family on the shared store (atomic; a family already revoked or gone is left alone).
 *
 * @param ctx - the context
 * @param shared - the shared state
 * @param target - `id` of the family, `reason` (logged and stored), and `only`: revoke only when this holds for
 *   the current entry (e.g. the presented token is its current one)
 * @returns whether this call revoked it
 * @throws McpPipeError `MCPP_STORE_UNAVAILABLE` / `MCPP_STORE_CONFLICT` from the store
 */
export async function revokeSharedFamily(
  ctx: OAuthContext,
  shared: SharedOAuthState,
  target: { id: string; reason: string; only?: (family: FamilyRecord) => boolean },
): Promise<boolean> {
  const { id, reason, only = () => true } = target;
  const now = ctx.clock();
  const revoked = await shared.families.update<FamilyRecord>(id, (f) => {
    if (f === undefined || f.status === 'revoked' || !only(f)) return { op: 'keep' };
    const value: FamilyRecord = { ...f, ...revokedFields(now, reason) };
    return { op: 'set', value, ttlMs: familyTtlMs(ctx, value, now), result: value };
  });
  if (revoked === undefined) return false;
  await shared.changedFamily(revoked);
  reportRevoked(ctx, revoked, reason);
  return true;
}
