/**
 * Stages 2 and 3 (DESIGN.md G5): bearer verification, then the audience check. Both run in `onRequest`,
 * before the body is read, so an unauthenticated request costs one JWT verification (G6). The token is
 * read from the `Authorization` header only (never `?access_token=`). A verified request carries its
 * `AuthInfo` as `req.raw.auth`; its `Authorization`, cookies and similar credentials are then removed from
 * the request so nothing downstream can forward them.
 *
 * @module
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver, TokenVerifier } from '../types.js';
import { RPC, mustCloseUnread, refuse } from './rpcError.js';

/** The agent's credentials: never forwarded past the gateway (to an upstream or through a tunnel, T5). */
export const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'];

/**
 * Headers removed from a verified request: client credentials and session identifiers (the gateway's own
 * routes are stateless, G7; a tunnel keeps `mcp-session-id`, its sessions live in the CLI, T6).
 */
export const STRIPPED_HEADERS = [...CREDENTIAL_HEADERS, 'mcp-session-id'];

/** `Authorization: Bearer <token>` (RFC 6750 §2.1 `b64token`). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The Node request of a verified request. */
export type AuthedRaw = FastifyRequest['raw'] & { auth?: AuthInfo };

/**
 * Canonical form used to compare resources: scheme and host lower-case, no trailing slash.
 *
 * @param value - a resource URL (string or URL)
 */
export function canonicalResource(value: string | URL): string | undefined {
  try {
    const url = new URL(String(value));
    let path = url.pathname;
    while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    return `${url.protocol}//${url.host}${path === '/' ? '' : path}${url.search}`;
  } catch {
    return undefined;
  }
}

/**
 * The `WWW-Authenticate` challenge: always with `resource_metadata`, with `error="invalid_token"` when a
 * token was sent.
 *
 * @param metadataUrl - the endpoint's RFC 9728 metadata URL
 * @param description - set when a token was sent and refused
 */
export function bearerChallenge(metadataUrl: string, description?: string): string {
  if (description === undefined) return `Bearer resource_metadata="${metadataUrl}"`;
  const safe = description.replace(/["\\\r\n]/g, ' ');
  return `Bearer error="invalid_token", error_description="${safe}", resource_metadata="${metadataUrl}"`;
}

/** The fixed reasons a bearer token is refused with (sent as `error_description`). */
const REFUSALS = {
  malformed: 'Malformed Authorization header',
  invalid: 'The access token is invalid or expired',
  expired: 'The access token expired',
  audience: 'The access token was not issued for this resource',
} as const;

/** Why a request was refused 401: no credentials, or one of {@link REFUSALS}. */
type Refusal = 'missing' | keyof typeof REFUSALS;

/**
 * One protected resource, with everything its 401 answers need computed once (not per request): the
 * canonical resource compared with a token's audience, and the `WWW-Authenticate` value and JSON body of
 * each refusal.
 */
export interface ProtectedTarget {
  /** The endpoint's resource URL. */
  resource: string;
  /** {@link canonicalResource} of `resource`. */
  canonical: string | undefined;
  /** The RFC 9728 metadata URL. */
  metadataUrl: string;
  /** Header and serialized body per refusal. */
  refusals: Record<Refusal, { header: string; body: string }>;
}

/**
 * Precomputes a {@link ProtectedTarget}.
 *
 * @param resource - the endpoint's resource URL
 * @param metadataUrl - its RFC 9728 metadata URL
 */
export function protectedTarget(resource: string, metadataUrl: string): ProtectedTarget {
  const refusal = (description?: string) => ({
    header: bearerChallenge(metadataUrl, description),
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
    resource,
    canonical: canonicalResource(resource),
    metadataUrl,
    refusals: {
      missing: refusal(),
      malformed: refusal(REFUSALS.malformed),
      invalid: refusal(REFUSALS.invalid),
      expired: refusal(REFUSALS.expired),
      audience: refusal(REFUSALS.audience),
    },
  };
}

function challenge(reply: FastifyReply, target: ProtectedTarget, why: Refusal): FastifyReply {
  const { header, body } = target.refusals[why];
  reply.header('www-authenticate', header);
  if (mustCloseUnread(reply.request)) reply.header('connection', 'close');
  return reply.code(401).type('application/json').send(body);
}

/** Options of {@link createAuthHook}. */
export interface AuthHookOptions {
  verifier: TokenVerifier;
  /** Maps a request to its protected resource ({@link protectedTarget}); undefined when none applies (→ 404). */
  resourceOf: (req: FastifyRequest) => ProtectedTarget | undefined;
  observer?: PipelineObserver;
}

/**
 * Builds the `onRequest` hook doing bearer verification and the audience check.
 *
 * @param options - the verifier and the resource mapping
 */
export function createAuthHook(options: AuthHookOptions) {
  const { verifier, resourceOf, observer } = options;
  // a token's audience (URL text) → its canonical form: a handful of distinct values, bounded anyway
  const audiences = new Map<string, string | undefined>();
  const canonicalAudience = (href: string): string | undefined => {
    if (audiences.has(href)) return audiences.get(href);
    const canonical = canonicalResource(href);
    if (audiences.size >= 1024) audiences.clear();
    audiences.set(href, canonical);
    return canonical;
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const target = resourceOf(req);
    if (target === undefined) {
      return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found' });
    }
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match?.[1]) {
      observer?.('auth', 'reject');
      return challenge(reply, target, header === undefined ? 'missing' : 'malformed');
    }
    let info: AuthInfo;
    if (verifier.checkAccessToken !== undefined) {
      const check = await verifier.checkAccessToken(match[1], target.resource);
      if (!check.ok) {
        observer?.('auth', 'reject');
        return challenge(reply, target, 'invalid');
      }
      info = check.authInfo;
    } else {
      try {
        info = await verifier.verifyAccessToken(match[1], target.resource);
      } catch {
        observer?.('auth', 'reject');
        return challenge(reply, target, 'invalid');
      }
    }
    observer?.('auth', 'pass');
    const audience = info.resource === undefined ? undefined : canonicalAudience(info.resource.href);
    const expired = typeof info.expiresAt === 'number' && info.expiresAt * 1000 < Date.now();
    if (audience === undefined || audience !== target.canonical || expired) {
      observer?.('audience', 'reject');
      return challenge(reply, target, expired ? 'expired' : 'audience');
    }
    observer?.('audience', 'pass');
    const raw = req.raw as AuthedRaw;
    raw.auth = info;
    for (const name of STRIPPED_HEADERS) delete raw.headers[name];
    raw.rawHeaders = raw.rawHeaders.filter((_, i, all) => {
      const nameIndex = i % 2 === 0 ? i : i - 1;
      return !STRIPPED_HEADERS.includes((all[nameIndex] ?? '').toLowerCase());
    });
  };
}
