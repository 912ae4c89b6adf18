import { isMcpPipeError } from '@mcppipe/errors';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { ACCESS_TOKEN_SKEW_SEC, MAX_ACCESS_TOKEN_LENGTH } from './defaults.js';
import { invalidToken } from './errors.js';
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
  /** `sub`, `jti` and the refresh-token family id (`familyId`). */
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

/**
 * Verifies signature and claims: the algorithm is pinned to EdDSA, the key is the local one (header `kid`
 * must name it; `jku`, `x5u`, `jwk` and `x5c` are never consulted), `typ` must be `at+jwt`, `iss` the
 * issuer, `aud` the expected resource, `exp`/`nbf` within 30 s of skew. No disk, no network.
 *
 * @param key - the local key
 * @param token - the compact JWT
 * @param options - issuer, expected audience and the current time
 * @returns the claims
 * @throws McpPipeError `MCPP_OAUTH_INVALID_TOKEN`
 */
export async function verifyAccessTokenSignature(
  key: SigningKey,
  token: string,
  options: { issuer: string; audience: string; nowMs: number },
): Promise<VerifiedClaims> {
  if (token.length === 0 || token.length > MAX_ACCESS_TOKEN_LENGTH)
    throw invalidToken('empty or oversized token');
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
    if (err instanceof joseErrors.JOSEError) throw invalidToken(err.code, err);
    throw isMcpPipeError(err, 'MCPP_OAUTH_INVALID_TOKEN') ? err : invalidToken('malformed token', err);
  }
  const { sub, jti, exp, aud } = payload;
  if (typeof aud !== 'string') throw invalidToken('aud must be a single resource');
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
    throw invalidToken('missing claims');
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
