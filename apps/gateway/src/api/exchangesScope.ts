/**
 * The owner scope of the capture routes (issue 19 API contract): 401 without a caller (with
 * `WWW-Authenticate: Bearer realm="mcppipe-api"`), 403 `csrf` for a session's state-changing request without its
 * token, 404 for an unknown tunnel or another account's (the same answer: no probing of other accounts).
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { splitLabel } from '../tunnel/address.js';
import type { ApiCaller } from './caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiCaller?: ApiCaller;
  }
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The `onRequest` hook that resolves the caller.
 *
 * @param resolveCaller - from `createCallerResolver`
 * @returns the hook
 */
export function callerHook(resolveCaller: (req: FastifyRequest) => ApiCaller | undefined) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const caller = resolveCaller(req);
    if (caller === undefined) {
      reply.header('www-authenticate', 'Bearer realm="mcppipe-api"');
      return reply
        .code(401)
        .send({ error: 'unauthorized', message: 'send Authorization: Bearer <API key>, or log in' });
    }
    if (caller.kind === 'account' && caller.via === 'session' && !SAFE.has(req.method)) {
      if (req.headers['x-csrf-token'] !== caller.csrf)
        return reply
          .code(403)
          .send({ error: 'csrf', message: 'send the session csrf token as x-csrf-token' });
    }
    req.apiCaller = caller;
    return undefined;
  };
}

/**
 * Whether the caller owns the tunnel `id` (`<subdomain>--<account>`) and the relay knows it; otherwise answers 404.
 *
 * @param req - the request (its `apiCaller` set by {@link callerHook})
 * @param reply - answered 404 when not owned or unknown
 * @param known - whether the relay has seen the tunnel id
 * @returns the tunnel id, or undefined when the 404 was sent
 */
export function ownedTunnel(
  req: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  known: (id: string) => boolean,
): string | undefined {
  const { id } = req.params;
  const caller = req.apiCaller;
  const mine =
    caller?.kind === 'admin' ||
    (caller?.kind === 'account' && splitLabel(id).some((c) => c.account === caller.account));
  if (mine && known(id)) return id;
  void reply.code(404).send({ error: 'not_found', message: `no tunnel ${JSON.stringify(id)}` });
  return undefined;
}

/**
 * A display name of the API caller (an exchange's `caller` for a replay): the key's name, like tunnel traffic.
 *
 * @param caller - the caller
 * @param keyName - the name of an API key by id
 * @returns `admin`, the key's name, or `<account> (dashboard)`
 */
export function callerName(caller: ApiCaller | undefined, keyName: (keyId: string) => string): string | null {
  if (caller === undefined) return null;
  if (caller.kind === 'admin') return 'admin';
  return caller.via === 'key' ? keyName(caller.keyId) : `${caller.account} (dashboard)`;
}
