/**
 * Stages 2 and 3 (DESIGN.md G5): bearer verification and the audience check, both `@mcppipe/oauth`'s one bearer
 * check (`authenticateBearer`). They run in `onRequest`, before the body is read, so an unauthenticated request
 * costs one JWT verification (G6). The token is read from the `Authorization` header only (never
 * `?access_token=`). A verified request carries its `AuthInfo` as `req.raw.auth`; its `Authorization`, cookies and
 * similar credentials are then removed from the request so nothing downstream can forward them.
 *
 * @module
 */
import { authenticateBearer, type BearerTarget } from '@mcppipe/oauth';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver, TokenVerifier } from '../types.js';
import { RPC, mustCloseUnread, refuse } from './rpcError.js';

// A protected resource with its 401 answers computed once: `@mcppipe/oauth`'s `bearerTarget(resource, metadataUrl)`.
export { bearerTarget as protectedTarget } from '@mcppipe/oauth';
export type { BearerTarget as ProtectedTarget } from '@mcppipe/oauth';

/** The agent's credentials: never forwarded past the gateway (to an upstream or through a tunnel, T5). */
export const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'];

/**
 * Headers removed from a verified request: client credentials and session identifiers (the gateway's own
 * routes are stateless, G7; a tunnel keeps `mcp-session-id`, its sessions live in the CLI, T6).
 */
export const STRIPPED_HEADERS = [...CREDENTIAL_HEADERS, 'mcp-session-id'];

/** The Node request of a verified request. */
export type AuthedRaw = FastifyRequest['raw'] & { auth?: AuthInfo };

/** Options of {@link createAuthHook}. */
export interface AuthHookOptions {
  verifier: TokenVerifier;
  /** Maps a request to its protected resource (`bearerTarget`); undefined when none applies (→ 404). */
  resourceOf: (req: FastifyRequest) => BearerTarget | undefined;
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
    const result = await authenticateBearer(verifier, req.headers.authorization, target);
    if (!result.ok) {
      observer?.(result.refusal === 'audience' ? 'audience' : 'auth', 'reject');
      reply.header('www-authenticate', result.wwwAuthenticate);
      if (mustCloseUnread(reply.request)) reply.header('connection', 'close');
      return reply.code(401).type('application/json').send(result.body);
    }
    observer?.('auth', 'pass');
    observer?.('audience', 'pass');
    const raw = req.raw as AuthedRaw;
    raw.auth = result.authInfo;
    for (const name of STRIPPED_HEADERS) delete raw.headers[name];
    raw.rawHeaders = raw.rawHeaders.filter((_, i, all) => {
      const nameIndex = i % 2 === 0 ? i : i - 1;
      return !STRIPPED_HEADERS.includes((all[nameIndex] ?? '').toLowerCase());
    });
  };
}
