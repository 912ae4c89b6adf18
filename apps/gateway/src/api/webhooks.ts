/**
 * The webhook routes (E3), one implementation for the gateway's own scope (`/api/webhooks`, admin) and each
 * tunnel's (`/api/tunnels/:id/webhooks`, owner): `POST` (201 with the secret, shown once), `GET`, `DELETE /:wid`,
 * `GET /:wid/deliveries`. The logic is `WebhookDeliverer`'s; each request becomes a {@link WebhookOp} answered by
 * {@link webhookAnswer}, here or (a tunnel another node holds) on the holding node.
 *
 * @module
 */
import type { WebhookDeliverer } from '@mcppipe/events';
import type { NodeCallAnswer } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendAnswer } from './holdingNode.js';
import { failure } from './reply.js';

/** One webhook request of a scope, as plain JSON (it crosses the node link as is). */
export type WebhookOp =
  | { op: 'create'; url: unknown; events: unknown }
  | { op: 'list' }
  | { op: 'remove'; wid: string }
  | { op: 'deliveries'; wid: string };

/**
 * Answers a scope's webhook request (the one implementation of the routes).
 *
 * @param webhooks - the scope's deliverer
 * @param w - the request
 * @returns 201 with the subscription and its secret, 200 with the list or deliveries, 204 after a removal; the
 *   deliverer's typed errors as {@link failure} maps them (unknown webhook 404, bad URL or events 400)
 */
export async function webhookAnswer(webhooks: WebhookDeliverer, w: WebhookOp): Promise<NodeCallAnswer> {
  try {
    switch (w.op) {
      case 'create': {
        const { subscription, secret } = await webhooks.create({ url: w.url, events: w.events });
        return { status: 201, body: { ...subscription, secret } };
      }
      case 'list':
        return { status: 200, body: { webhooks: webhooks.list() } };
      case 'remove':
        await webhooks.remove(w.wid);
        return { status: 204, body: null };
      case 'deliveries':
        return { status: 200, body: { deliveries: webhooks.deliveries(w.wid) } };
      default:
        return w satisfies never;
    }
  } catch (err) {
    return failure(err);
  }
}

/**
 * A node call's webhook request read back (the holding node checks what a peer sent).
 *
 * @param v - the payload's `webhook` member
 * @returns the request, or undefined when it is not one
 */
export function webhookOpOf(v: unknown): WebhookOp | undefined {
  const o = (v ?? {}) as Record<string, unknown>;
  if (o['op'] === 'create') return { op: 'create', url: o['url'], events: o['events'] };
  if (o['op'] === 'list') return { op: 'list' };
  if ((o['op'] === 'remove' || o['op'] === 'deliveries') && typeof o['wid'] === 'string')
    return { op: o['op'], wid: o['wid'] };
  return undefined;
}

/**
 * Answers a request of the route's scope; undefined when the reply (a 404) was already sent.
 *
 * @param req - the request (its params name the scope)
 * @param reply - the reply
 * @param w - the webhook request
 */
export type WebhookAnswerOf = (
  req: FastifyRequest,
  reply: FastifyReply,
  w: WebhookOp,
) => Promise<NodeCallAnswer | undefined>;

type Wid = { Params: { wid: string } };

/**
 * Registers the webhook routes under `prefix`.
 *
 * @param app - the plugin instance
 * @param prefix - `/api/webhooks` or `/api/tunnels/:id/webhooks`
 * @param answerOf - answers a request in the route's scope (with {@link webhookAnswer}, here or on another node)
 */
export function webhookRoutes(app: FastifyInstance, prefix: string, answerOf: WebhookAnswerOf): void {
  const route = async (req: FastifyRequest, reply: FastifyReply, w: WebhookOp) => {
    const out = await answerOf(req, reply, w);
    return out === undefined ? reply : sendAnswer(reply, out);
  };
  app.post(prefix, (req, reply) => {
    const body = (req.body ?? {}) as { url?: unknown; events?: unknown };
    return route(req, reply, { op: 'create', url: body.url, events: body.events });
  });
  app.get(prefix, (req, reply) => route(req, reply, { op: 'list' }));
  app.delete<Wid>(`${prefix}/:wid`, (req, reply) => route(req, reply, { op: 'remove', wid: req.params.wid }));
  app.get<Wid>(`${prefix}/:wid/deliveries`, (req, reply) =>
    route(req, reply, { op: 'deliveries', wid: req.params.wid }),
  );
}
