/**
 * The owner scope of the capture routes (issue 19 API contract; the caller is resolved once by the `/api` plugin's
 * hook): 404 for an unknown tunnel or another account's (the same answer: no probing of other accounts).
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { splitLabel } from '../tunnel/address.js';
import type { ApiCaller } from './caller.js';

/**
 * Whether the caller owns the tunnel `id` (`<subdomain>--<account>`) and the relay knows it; otherwise answers 404.
 *
 * @param req - the request (its `apiCaller` set by the `/api` plugin's hook)
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
