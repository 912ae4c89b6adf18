/**
 * The one "answer on the node holding the tunnel" dispatch of the `/api` routes whose data lives only there (issue
 * 20, S2: a replay needs the original bytes, the stats and stars are pre-aggregated in the holding node's memory).
 * With many nodes a load balancer sends the dashboard to any node: a node that does not hold the tunnel asks the
 * holding node over the node link (a named node call, `TunnelCluster.call`) and relays its answer as is.
 *
 * @module
 */
import type { NodeCallAnswer, TunnelCluster } from '@mcppipe/tunnel';
import type { FastifyReply } from 'fastify';
import type { OwnedTunnelId } from './owned.js';

/** How {@link onHoldingNode} decides where a request of a tunnel is answered. */
export interface HoldingNodeRoute {
  /** Whether this node holds the tunnel now. */
  held: (id: string) => boolean;
  /** Whether this node has seen the tunnel (it has a record of it, perhaps stale). */
  known: (id: string) => boolean;
  /** Many nodes: the ownership records and the node link; undefined on one node. */
  cluster: TunnelCluster | undefined;
}

/** The 503 when the node holding a tunnel does not answer a node call. */
export const HOLDING_NODE_UNREACHABLE: NodeCallAnswer = {
  status: 503,
  body: { error: 'tunnel_offline', message: 'the node holding the tunnel did not answer: try again' },
};

/**
 * Answers an owner-scoped request of a tunnel (the caller was checked by `ownedTunnel`): here when this node holds
 * it; else, when another node holds it, by that node (node call `name` with `payload`; the handler registered there
 * with `TunnelCluster.handle` never forwards again); else, when this node knows the tunnel, with `idle` (held by no
 * node); else 404 (E2: unknown and foreign tunnels answer the same).
 *
 * @param t - the caller's tunnel
 * @param route - this node's view of the tunnels
 * @param call - the node call's name, its payload, and the local answer (`here`, and `idle` for a tunnel held by
 *   no node; default `here`)
 * @returns the answer
 */
export async function onHoldingNode(
  t: OwnedTunnelId,
  route: HoldingNodeRoute,
  call: {
    name: string;
    payload: unknown;
    here: () => Promise<NodeCallAnswer> | NodeCallAnswer;
    idle?: () => NodeCallAnswer;
  },
): Promise<NodeCallAnswer> {
  if (route.held(t.id)) return call.here();
  const owner = await route.cluster?.remoteOwner(t.subdomain, t.account);
  if (owner !== undefined)
    return route.cluster!.call(owner, call.name, call.payload).catch(() => HOLDING_NODE_UNREACHABLE);
  if (!route.known(t.id))
    return { status: 404, body: { error: 'not_found', message: `no tunnel ${JSON.stringify(t.id)}` } };
  return call.idle?.() ?? call.here();
}

/**
 * Sends a node call's answer as the route's reply (204 without a body).
 *
 * @param reply - the reply
 * @param out - the answer
 */
export function sendAnswer(reply: FastifyReply, out: NodeCallAnswer): FastifyReply {
  return out.status === 204 ? reply.code(204).send() : reply.code(out.status).send(out.body);
}
