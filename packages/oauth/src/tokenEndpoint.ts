import { decodeJwt } from 'jose';
import { verifyAccessTokenSignature } from './accessToken.js';
import { authenticateClient, parseBasicAuth } from './clients.js';
import type { CodeStore } from './codes.js';
import { resolveResource, type OAuthContext } from './context.js';
import { ACCESS_TOKEN_SKEW_SEC } from './defaults.js';
import { oauthError } from './errors.js';
import {
  refreshTokens,
  revokedFields,
  revokeFamily,
  startFamily,
  type GraceCache,
  type TokenResponse,
} from './families.js';
import { param, requiredParam, type RawParams } from './params.js';
import { hashSecret } from './secrets.js';
import { refreshShared, revokeSharedFamily } from './sharedFamilies.js';

/** The token-endpoint dependencies besides the context. */
export interface TokenDeps {
  codes: CodeStore;
  grace: GraceCache;
}

/**
 * Handles a token request (`authorization_code` or `refresh_token`). All checks and the consumption of the
 * code or rotation of the refresh token happen synchronously before the first await.
 *
 * @param ctx - the context
 * @param deps - code store and grace cache
 * @param request - the form and the `Authorization` header
 * @returns the token response
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` or `MCPP_OAUTH_STATE_WRITE_FAILED`
 */
export function handleTokenRequest(
  ctx: OAuthContext,
  deps: TokenDeps,
  request: { form: RawParams | undefined; authorization: string | undefined },
): Promise<TokenResponse> {
  const { form } = request;
  if (!form) throw oauthError('invalid_request', 'send application/x-www-form-urlencoded');
  const client = authenticateClient(ctx, {
    basic: parseBasicAuth(request.authorization),
    formId: param(form, 'client_id'),
    formSecret: typeof form['client_secret'] === 'string' ? form['client_secret'] : undefined,
  });
  const grantType = requiredParam(form, 'grant_type');
  if (grantType === 'refresh_token') {
    const params = {
      client,
      refreshToken: requiredParam(form, 'refresh_token'),
      scope: param(form, 'scope'),
      resource: param(form, 'resource'),
    };
    return ctx.shared ? refreshShared(ctx, ctx.shared, params) : refreshTokens(ctx, params, deps.grace);
  }
  if (grantType !== 'authorization_code')
    throw oauthError('unsupported_grant_type', 'use authorization_code or refresh_token');
  const code = requiredParam(form, 'code');
  const resourceParam = param(form, 'resource');
  const resource = resourceParam === undefined ? undefined : resolveResource(ctx, resourceParam);
  const redeemed = deps.codes.redeem(code, {
    clientId: client.client_id,
    redirectUri: param(form, 'redirect_uri'),
    verifier: param(form, 'code_verifier'),
    resource,
  });
  if (redeemed.status === 'replayed') {
    const replayed = () =>
      oauthError(
        'invalid_grant',
        'the authorization code was already used; tokens issued for it are revoked',
      );
    const { familyId } = redeemed;
    const family = familyId === undefined ? undefined : ctx.store.state.families[familyId];
    const { shared } = ctx;
    if (shared && familyId !== undefined) {
      // codes live on the node that issued them, so the family is in this node's mirror (maybe still being
      // written): revoke the mirror's object (written as revoked if its first write is still pending) and Redis
      if (family && family.status === 'active')
        Object.assign(family, revokedFields(ctx.clock(), 'authorization code replayed'));
      return revokeSharedFamily(ctx, shared, { id: familyId, reason: 'authorization code replayed' }).then(
        () => {
          throw replayed();
        },
      );
    }
    if (family) {
      revokeFamily(ctx, family, 'authorization code replayed');
      void ctx.store.persist().catch(() => undefined);
    }
    throw replayed();
  }
  const { binding } = redeemed;
  const { familyId, response } = startFamily(ctx, client, binding);
  redeemed.markIssued(familyId);
  return response;
}

/**
 * Handles RFC 7009 revocation. A refresh token revokes its family; an access token gets a revocation
 * marker (and, being bound to a family, that family too). Tokens of other clients, unknown and malformed
 * tokens are ignored: the answer is always 200 once the client is authenticated.
 *
 * @param ctx - the context
 * @param request - the form and the `Authorization` header
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_client`, `invalid_request`) or `MCPP_OAUTH_STATE_WRITE_FAILED`
 */
export async function handleRevocation(
  ctx: OAuthContext,
  request: { form: RawParams | undefined; authorization: string | undefined },
): Promise<void> {
  const { form } = request;
  if (!form) throw oauthError('invalid_request', 'send application/x-www-form-urlencoded');
  const client = authenticateClient(ctx, {
    basic: parseBasicAuth(request.authorization),
    formId: param(form, 'client_id'),
    formSecret: typeof form['client_secret'] === 'string' ? form['client_secret'] : undefined,
  });
  const token = requiredParam(form, 'token');
  const { shared } = ctx;
  const families = Object.values(ctx.store.state.families);
  const dot = token.indexOf('.');
  if (dot > 0 && token.split('.').length === 2) {
    const handleHash = hashSecret(token.slice(0, dot));
    if (shared) {
      const id = await shared.familyIdOf(handleHash);
      const current = hashSecret(token);
      if (id !== undefined)
        await revokeSharedFamily(ctx, shared, {
          id,
          reason: 'revoked by the client',
          only: (f) => f.currentHash === current && f.clientId === client.client_id,
        });
      return;
    }
    const family = families.find((f) => f.handleHash === handleHash && f.currentHash === hashSecret(token));
    if (family && family.clientId === client.client_id) {
      revokeFamily(ctx, family, 'revoked by the client');
      await ctx.store.persist();
    }
    return;
  }
  let audience: unknown;
  try {
    audience = decodeJwt(token).aud;
  } catch {
    return;
  }
  if (typeof audience !== 'string') return;
  let claims;
  try {
    claims = await verifyAccessTokenSignature(ctx.key, token, {
      issuer: ctx.issuer,
      audience,
      nowMs: ctx.clock(),
    });
  } catch {
    return;
  }
  if (claims.clientId !== client.client_id) return;
  if (shared) {
    const ttlMs = Math.max(1000, (claims.exp + ACCESS_TOKEN_SKEW_SEC) * 1000 - ctx.clock());
    await shared.revokeToken(claims.jti, claims.exp, ttlMs);
    await revokeSharedFamily(ctx, shared, {
      id: claims.familyId,
      reason: 'access token revoked by the client',
    });
    return;
  }
  ctx.store.state.revokedTokens[claims.jti] = claims.exp;
  const family = ctx.store.state.families[claims.familyId];
  if (family) revokeFamily(ctx, family, 'access token revoked by the client');
  await ctx.store.persist();
}
