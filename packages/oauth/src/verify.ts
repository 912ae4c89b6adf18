import {
  AUDIENCE_REFUSED,
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
 * be revoked. Expiry is part of the cache entry's validity (`exp` plus the skew). No disk, no network — except, on
 * many nodes (S1), one read of the shared store for a validly signed token whose client or family this node's
 * mirror does not hold yet.
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
    if (claims !== undefined && claims.audience !== audience) return { ok: false, reason: AUDIENCE_REFUSED };
  }
  if (claims === undefined) {
    const result = await state.checkSignature(ctx.key, token, { issuer: ctx.issuer, audience, nowMs });
    if ('reason' in result) return { ok: false, reason: result.reason };
    claims = result;
    if (key !== undefined) cache.set(key, claims, nowMs);
  }
  const { state: s } = ctx.store;
  if (
    ctx.shared &&
    !(Object.hasOwn(s.clients, claims.clientId) && Object.hasOwn(s.families, claims.familyId))
  ) {
    // issued by another node a moment ago (its pub/sub message not here yet): fetch into the mirror once
    try {
      await ctx.shared.client(claims.clientId);
      await ctx.shared.family(claims.familyId);
    } catch {
      return { ok: false, reason: 'the shared OAuth state is unreachable' };
    }
  }
  const client = Object.hasOwn(s.clients, claims.clientId) ? s.clients[claims.clientId] : undefined;
  if (client === undefined) return { ok: false, reason: 'unknown client' };
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
      extra: {
        sub: claims.sub,
        jti: claims.jti,
        familyId: claims.familyId,
        ...(client.client_name !== undefined && { clientName: client.client_name }),
      },
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

/** Checks a bearer token for one resource: an `OAuthProvider` (its `checkAccessToken`) or a test double. */
export interface BearerVerifier {
  /**
   * The one token check ({@link checkAccessToken}): signature, claims, audience `expectedResource`, revocation.
   *
   * @param token - the bearer token
   * @param expectedResource - the resource URL the request was made to
   */
  checkAccessToken(token: string, expectedResource: string): Promise<TokenCheck>;
}

/**
 * Why {@link authenticateBearer} refused a request: no `Authorization` header, one that is not
 * `Bearer <b64token>`, a token issued for another resource (`aud`), or any other refusal of the token.
 */
export type BearerRefusal = 'missing' | 'malformed' | 'audience' | 'invalid';

/** The `error_description` of each refusal sent with a token (fixed texts: no internals reach the client). */
const REFUSALS = {
  malformed: 'Malformed Authorization header',
  invalid: 'The access token is invalid or expired',
  audience: 'The access token was not issued for this resource',
} as const;

/**
 * One protected resource with everything its 401 answers need, computed once by {@link bearerTarget} (not per
 * request): the `WWW-Authenticate` value and JSON body of each {@link BearerRefusal}.
 */
export interface BearerTarget {
  /** The resource URL: the audience a token must have (compared in its canonical form). */
  readonly resource: string;
  /** Its RFC 9728 metadata URL, named in every challenge. */
  readonly metadataUrl: string;
  /** Header value and serialized JSON body per refusal. */
  readonly refusals: Readonly<Record<BearerRefusal, { readonly header: string; readonly body: string }>>;
}

/** Options of {@link bearerTarget}. */
export interface BearerTargetOptions {
  /** A `scope` to name in challenges (e.g. `mcp`). Default: none. */
  scope?: string;
  /** Whether refusals of a sent token carry an `error_description`. Default true. */
  descriptions?: boolean;
}

/** The parts of a challenge besides `resource_metadata`. */
interface ChallengeParts {
  error?: 'invalid_token';
  description?: string | undefined;
  scope?: string | undefined;
}

function challenge(metadataUrl: string, { error, description, scope }: ChallengeParts): string {
  const parts = [`resource_metadata="${metadataUrl}"`];
  if (description !== undefined)
    parts.unshift(`error_description="${description.replace(/["\\\r\n]/g, ' ')}"`);
  if (error !== undefined) parts.unshift(`error="${error}"`);
  if (scope !== undefined) parts.push(`scope="${scope}"`);
  return `Bearer ${parts.join(', ')}`;
}

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
  return challenge(protectedResourceMetadataUrl(resourceUrl), { ...(error && { error }), scope: 'mcp' });
}

/**
 * Precomputes a {@link BearerTarget}: the challenges (RFC 6750 §3: without `error` when no token was sent,
 * `error="invalid_token"` otherwise) and JSON bodies (`invalid_request` / `invalid_token`) of every refusal.
 *
 * @param resourceUrl - the endpoint's resource URL, e.g. `https://gw.example/hub` or a tunnel's public `/mcp` URL
 * @param metadataUrl - its RFC 9728 metadata URL; default the path-inserted one of `resourceUrl`
 * @param options - a `scope` to name, and whether to send `error_description`
 * @returns the target, to build once per resource and pass to {@link authenticateBearer} on every request
 */
export function bearerTarget(
  resourceUrl: string,
  metadataUrl: string = protectedResourceMetadataUrl(resourceUrl),
  options: BearerTargetOptions = {},
): BearerTarget {
  const describe = options.descriptions ?? true;
  const refusal = (description?: string) => ({
    header:
      description === undefined
        ? challenge(metadataUrl, { scope: options.scope })
        : challenge(metadataUrl, {
            error: 'invalid_token',
            description: describe ? description : undefined,
            scope: options.scope,
          }),
    body: JSON.stringify(
      description === undefined
        ? {
            error: 'invalid_request',
            error_description: 'Authorization required: send a Bearer access token',
          }
        : { error: 'invalid_token', error_description: description },
    ),
  });
  return {
    resource: resourceUrl,
    metadataUrl,
    refusals: {
      missing: refusal(),
      malformed: refusal(REFUSALS.malformed),
      invalid: refusal(REFUSALS.invalid),
      audience: refusal(REFUSALS.audience),
    },
  };
}

/** The outcome of {@link authenticateBearer}: the auth info, or the refusal and the 401 to answer with. */
export type BearerResult =
  | { ok: true; authInfo: AuthInfo }
  | {
      ok: false;
      status: 401;
      /** Why the request was refused. */
      refusal: BearerRefusal;
      /** The `WWW-Authenticate` value. */
      wwwAuthenticate: string;
      /** The serialized JSON body (`{ error, error_description }`). */
      body: string;
      /** Set when a token was sent. */
      error?: 'invalid_token';
      /** The check's reason, for logs only (never sent to clients). */
      reason?: string;
    };

/** `Authorization: Bearer <token>` (RFC 6750 §2.1 `b64token`). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function refused(target: BearerTarget, refusal: BearerRefusal, reason?: string): BearerResult {
  const { header, body } = target.refusals[refusal];
  return {
    ok: false,
    status: 401,
    refusal,
    wwwAuthenticate: header,
    body,
    ...(refusal !== 'missing' && { error: 'invalid_token' as const }),
    ...(reason !== undefined && { reason }),
  };
}

/**
 * The one bearer check (DESIGN.md G5 "bearer verification; resource (audience) check"), used by the gateway and by
 * any host of a protected MCP endpoint: reads `Authorization: Bearer …` only (never `?access_token=`), then runs
 * {@link checkAccessToken} once for `target.resource`: signature and claims (cached), audience, expiry (with the
 * skew) and revocation, with no disk, no bcrypt and no network (G6). The expected resource is per call, so one
 * verifier serves several resources: `/hub`, `/servers/<name>/mcp`, each loopback spelling of them, or a tunnel's
 * public `/mcp` URL.
 *
 * @param verifier - the token check (an `OAuthProvider`)
 * @param authorization - the `Authorization` header
 * @param target - the resource, from {@link bearerTarget} (built once per resource)
 * @returns the auth info, or the refusal with the 401 challenge and body to answer with (no token check was made
 *   for `missing` and `malformed`)
 */
export async function authenticateBearer(
  verifier: BearerVerifier,
  authorization: string | undefined,
  target: BearerTarget,
): Promise<BearerResult> {
  if (authorization === undefined) return refused(target, 'missing');
  const match = BEARER.exec(authorization);
  if (!match?.[1]) return refused(target, 'malformed');
  const result = await verifier.checkAccessToken(match[1], target.resource);
  if (result.ok) return result;
  return refused(target, result.reason === AUDIENCE_REFUSED ? 'audience' : 'invalid', result.reason);
}
