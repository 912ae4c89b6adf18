import { isMcpPipeError } from '@mcppipe/errors';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { ACCESS_TOKEN_SKEW_SEC, MAX_ACCESS_TOKEN_LENGTH } from './defaults.js';
import { invalidToken, type InvalidTokenData } from './errors.js';
import type { SigningKey } from './keys.js';
import { randomSecret } from './secrets.js';

/** What an access token says, after verification. Mirrors the MCP SDK's `AuthInfo`. */
export interface AuthInfo {
  /** The access token itself. */
  token: string;
  /** The OAuth client it was issued to. */
  clientId: string;
  /** Granted scopes. */
  scopes: string[];
  /** Expiry, epoch seconds. */
  expiresAt?: number;
  /** The RFC 8707 resource (the token's audience). */
  resource?: URL;
  /** `sub`, `jti`, the refresh-token family id (`familyId`) and the client's registered `clientName`, if any. */
  extra?: Record<string, unknown>;
}

/** The claims mcppipe puts into an access token (RFC 9068 shape). */
export interface AccessTokenClaims {
  sub: string;
  clientId: string;
  scopes: string[];
  resource: string;
  familyId: string;
}

/**
 * Signs an access token: EdDSA, `typ: at+jwt`, with `iss`, `aud` (the resource), `sub`, `client_id`,
 * `scope`, `iat`, `exp`, `jti` and `fid` (the refresh-token family).
 *
 * @param key - the signing key
 * @param claims - what to say
 * @param options - issuer, issue time (epoch seconds) and lifetime
 * @returns the compact JWT and its `jti` and `exp`
 */
export async function signAccessToken(
  key: SigningKey,
  claims: AccessTokenClaims,
  options: { issuer: string; nowSec: number; ttlSec: number },
): Promise<{ token: string; jti: string; exp: number }> {
  const jti = randomSecret(16);
  const exp = options.nowSec + options.ttlSec;
  const token = await new SignJWT({
    client_id: claims.clientId,
    scope: claims.scopes.join(' '),
    fid: claims.familyId,
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
    .setIssuer(options.issuer)
    .setAudience(claims.resource)
    .setSubject(claims.sub)
    .setIssuedAt(options.nowSec)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(key.privateKey);
  return { token, jti, exp };
}

/** The result of the signature and claim checks, before the in-memory revocation checks. */
export interface VerifiedClaims {
  sub: string;
  clientId: string;
  scopes: string[];
  exp: number;
  jti: string;
  familyId: string;
  audience: string;
}

/** Options of the signature and claim checks. */
export interface VerifyOptions {
  issuer: string;
  /** The expected audience, canonical form. */
  audience: string;
  /** The current time, epoch ms. */
  nowMs: number;
}

/** A compact JWS: three base64url segments (the only shape an access token of ours has). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal reason of a token issued for another resource (`TokenCheck`; `authenticateBearer` maps it). */
export const AUDIENCE_REFUSED = 'unexpected aud';

/**
 * The checks that can refuse a token without its signature, cheapest first: length, compact-JWS shape,
 * then the unverified header (`alg` EdDSA, `kid` the local key's) and payload (`iss`, a single `aud` equal
 * to the expected one, `exp` and `nbf` within the skew). A rejection never needs the signature; passing
 * these proves nothing, and the token still goes through `jwtVerify`, which checks all of them again.
 *
 * @param key - the local key
 * @param token - the bearer token
 * @param options - issuer, expected audience and the current time
 * @returns why the token is refused, or undefined when it must be verified
 */
export function precheckAccessToken(
  key: SigningKey,
  token: string,
  options: VerifyOptions,
): string | undefined {
  if (token.length === 0 || token.length > MAX_ACCESS_TOKEN_LENGTH) return 'empty or oversized token';
  if (!COMPACT_JWS.test(token)) return 'malformed token';
  const dot = token.indexOf('.');
  const header = decodeSegment(token.slice(0, dot));
  if (header === undefined) return 'malformed token';
  if (header['alg'] !== 'EdDSA') return 'unexpected alg';
  if (header['kid'] !== key.kid) return 'unknown kid';
  const payload = decodeSegment(token.slice(dot + 1, token.indexOf('.', dot + 1)));
  if (payload === undefined) return 'malformed token';
  if (payload['iss'] !== options.issuer) return 'unexpected iss';
  if (payload['aud'] !== options.audience) return AUDIENCE_REFUSED;
  const nowSec = Math.floor(options.nowMs / 1000);
  const exp = payload['exp'];
  if (typeof exp !== 'number' || exp <= nowSec - ACCESS_TOKEN_SKEW_SEC) return 'expired';
  const nbf = payload['nbf'];
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > nowSec + ACCESS_TOKEN_SKEW_SEC))
    return 'not yet valid';
  return undefined;
}

/**
 * Verifies signature and claims without throwing for an invalid token: the algorithm is pinned to EdDSA,
 * the key is the local one (header `kid` must name it; `jku`, `x5u`, `jwk` and `x5c` are never consulted),
 * `typ` must be `at+jwt`, `iss` the issuer, `aud` the expected resource, `exp`/`nbf` within 30 s of skew.
 * {@link precheckAccessToken} runs first, so a token refused by its claims costs no signature check.
 * No disk, no network.
 *
 * @param key - the local key
 * @param token - the compact JWS
 * @param options - issuer, expected audience and the current time
 * @returns the claims, or the reason the token is refused (for logs; never sent to clients)
 */
export async function checkAccessTokenSignature(
  key: SigningKey,
  token: string,
  options: VerifyOptions,
): Promise<VerifiedClaims | { reason: string }> {
  const refused = precheckAccessToken(key, token, options);
  if (refused !== undefined) return { reason: refused };
  let payload;
  try {
    ({ payload } = await jwtVerify(
      token,
      (header) => {
        if (header.kid !== key.kid) throw invalidToken('unknown kid');
        return key.publicKey;
      },
      {
        algorithms: ['EdDSA'],
        typ: 'at+jwt',
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: ACCESS_TOKEN_SKEW_SEC,
        currentDate: new Date(options.nowMs),
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'aud'],
      },
    ));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return { reason: err.code };
    return {
      reason: isMcpPipeError(err, 'MCPP_OAUTH_INVALID_TOKEN')
        ? (err.data as InvalidTokenData).reason
        : 'malformed token',
    };
  }
  const { sub, jti, exp, aud } = payload;
  if (typeof aud !== 'string') return { reason: 'aud must be a single resource' };
  const clientId = payload['client_id'];
  const scope = payload['scope'];
  const familyId = payload['fid'];
  if (
    typeof clientId !== 'string' ||
    typeof scope !== 'string' ||
    typeof familyId !== 'string' ||
    typeof sub !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number'
  ) {
    return { reason: 'missing claims' };
  }
  return {
    sub,
    clientId,
    scopes: scope.split(' ').filter(Boolean),
    exp,
    jti,
    familyId,
    audience: aud,
  };
}

/**
 * {@link checkAccessTokenSignature}, throwing for an invalid token.
 *
 * @param key - the local key
 * @param token - the compact JWS
 * @param options - issuer, expected audience and the current time
 * @returns the claims
 * @throws McpPipeError `MCPP_OAUTH_INVALID_TOKEN`
 */
export async function verifyAccessTokenSignature(
  key: SigningKey,
  token: string,
  options: VerifyOptions,
): Promise<VerifiedClaims> {
  const result = await checkAccessTokenSignature(key, token, options);
  if ('reason' in result) throw invalidToken(result.reason);
  return result;
}
