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
import { RPC, hasBody, refuse } from './rpcError.js';

/** Headers removed from a verified request: client credentials and session identifiers. */
export const STRIPPED_HEADERS = [
  'authorization',
  'cookie',
  'proxy-authorization',
  'x-api-key',
  'mcp-session-id',
];

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

function challenge(reply: FastifyReply, metadataUrl: string, description?: string): FastifyReply {
  reply.header('www-authenticate', bearerChallenge(metadataUrl, description));
  if (hasBody(reply.request)) reply.header('connection', 'close');
  const body =
    description === undefined
      ? { error: 'invalid_request', error_description: 'Authorization required: send a Bearer access token' }
      : { error: 'invalid_token', error_description: description };
  return reply.code(401).type('application/json').send(body);
}

/** Options of {@link createAuthHook}. */
export interface AuthHookOptions {
  verifier: TokenVerifier;
  /** Maps a request to its resource URL and metadata URL; undefined when no resource applies (→ 404). */
  resourceOf: (req: FastifyRequest) => { resource: string; metadataUrl: string } | undefined;
  observer?: PipelineObserver;
}

/**
 * Builds the `onRequest` hook doing bearer verification and the audience check.
 *
 * @param options - the verifier and the resource mapping
 */
export function createAuthHook(options: AuthHookOptions) {
  const { verifier, resourceOf, observer } = options;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const target = resourceOf(req);
    if (target === undefined) {
      return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found' });
    }
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header) : null;
    if (!match?.[1]) {
      observer?.('auth', 'reject');
      return challenge(
        reply,
        target.metadataUrl,
        header === undefined ? undefined : 'Malformed Authorization header',
      );
    }
    let info: AuthInfo;
    try {
      info = await verifier.verifyAccessToken(match[1], target.resource);
    } catch {
      observer?.('auth', 'reject');
      return challenge(reply, target.metadataUrl, 'The access token is invalid or expired');
    }
    observer?.('auth', 'pass');
    const audience = info.resource === undefined ? undefined : canonicalResource(info.resource);
    const expired = typeof info.expiresAt === 'number' && info.expiresAt * 1000 < Date.now();
    if (audience === undefined || audience !== canonicalResource(target.resource) || expired) {
      observer?.('audience', 'reject');
      return challenge(
        reply,
        target.metadataUrl,
        expired ? 'The access token expired' : 'The access token was not issued for this resource',
      );
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
