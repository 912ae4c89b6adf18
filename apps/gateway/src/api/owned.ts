/**
 * The one "this caller's tunnel or 404" lookup of the `/api` routes (DESIGN.md E2, D1; issue 19 item 4): the
 * capture, stats, settings and tunnel-scope routes all resolve `:id` through {@link ownedTunnel}, so an unknown
 * tunnel and another account's answer the same 404 (no probing of other accounts).
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { splitLabel } from '../tunnel/address.js';
import { notFound } from './reply.js';

/** A tunnel id (`<subdomain>--<account>`) read with the caller's account. */
export interface OwnedTunnelId {
  /** The address label, as in the URL. */
  id: string;
  subdomain: string;
  /** The caller's account (the label's account part). */
  account: string;
}

/**
 * Resolves `req.params.id` for the caller (set by the `/api` plugin's hook): only an account caller whose account
 * is the label's account part gets past, and then only when `find` knows the tunnel. Anything else is answered
 * 404 `{ error: 'not_found' }` (E2: the same answer for unknown and foreign tunnels).
 *
 * @param req - the request (`params.id`, `apiCaller`)
 * @param reply - answered 404 when the tunnel is not the caller's or not known
 * @param find - what the route needs of the tunnel (its scope, its live connection, its id), or undefined when it
 *   does not exist for this route
 * @returns what `find` returned, or undefined when the 404 was sent
 * @example Owner-scoped route
 * ```ts
 * const scope = ownedTunnel(req, reply, (t) => tunnels.get(t.id, t.account));
 * if (scope === undefined) return reply;
 * ```
 */
export function ownedTunnel<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  find: (tunnel: OwnedTunnelId) => T | undefined,
): T | undefined {
  const { id } = req.params as { id: string };
  const caller = req.apiCaller;
  const mine =
    caller?.kind === 'account' ? splitLabel(id).find((c) => c.account === caller.account) : undefined;
  const found = mine === undefined ? undefined : find({ id, ...mine });
  if (found === undefined) void notFound(reply, `no tunnel ${JSON.stringify(id)}`);
  return found;
}
