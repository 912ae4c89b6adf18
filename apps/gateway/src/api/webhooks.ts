/**
 * The webhook routes (E3), one implementation for the gateway's own scope (`/api/webhooks`, admin) and each
 * tunnel's (`/api/tunnels/:id/webhooks`, owner): `POST` (201 with the secret, shown once), `GET`, `DELETE /:wid`,
 * `GET /:wid/deliveries`. The logic is `WebhookDeliverer`'s.
 *
 * @module
 */
import type { WebhookDeliverer } from '@mcppipe/events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail } from './reply.js';

/** Finds the deliverer of a request's scope; undefined when the reply (a 404) was already sent. */
export type DelivererOf = (req: FastifyRequest, reply: FastifyReply) => Promise<WebhookDeliverer | undefined>;

type Wid = { Params: { wid: string } };

/**
 * Registers the webhook routes under `prefix`.
 *
 * @param app - the plugin instance
 * @param prefix - `/api/webhooks` or `/api/tunnels/:id/webhooks`
 * @param delivererOf - the scope's deliverer
 */
export function webhookRoutes(app: FastifyInstance, prefix: string, delivererOf: DelivererOf): void {
  app.post(prefix, async (req, reply) => {
    const webhooks = await delivererOf(req, reply);
    if (!webhooks) return reply;
    const body = (req.body ?? {}) as { url?: unknown; events?: unknown };
    try {
      const { subscription, secret } = await webhooks.create({ url: body.url, events: body.events });
      return await reply.code(201).send({ ...subscription, secret });
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.get(prefix, async (req, reply) => {
    const webhooks = await delivererOf(req, reply);
    return webhooks ? { webhooks: webhooks.list() } : reply;
  });
  app.delete<Wid>(`${prefix}/:wid`, async (req, reply) => {
    const webhooks = await delivererOf(req, reply);
    if (!webhooks) return reply;
    try {
      await webhooks.remove(req.params.wid);
      return await reply.code(204).send();
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.get<Wid>(`${prefix}/:wid/deliveries`, async (req, reply) => {
    const webhooks = await delivererOf(req, reply);
    if (!webhooks) return reply;
    try {
      return { deliveries: webhooks.deliveries(req.params.wid) };
    } catch (err) {
      return fail(reply, err);
    }
  });
}
