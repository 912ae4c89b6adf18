/**
 * The gateway's events API (E2–E4) for its own configured servers, behind the admin API token
 * (`Authorization: Bearer $MCPPIPE_API_TOKEN`, compared in constant time). Routes only translate: the logic is
 * `@mcppipe/events`'. `GET /api/servers`, `GET /api/servers/stream` (SSE, `Last-Event-ID`),
 * `POST /api/servers/:name/reconnect`, `GET /api/servers/:name/tools`, `POST /api/servers/:name/tools/:tool/accept`,
 * `POST|GET /api/webhooks`, `DELETE /api/webhooks/:id`, `GET /api/webhooks/:id/deliveries`.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { openEventStream, type EventStream } from '@mcppipe/events';
import { isMcpPipeError } from '@mcppipe/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayEvents } from '../events/scope.js';

type Name = { Params: { name: string } };
type Tool = { Params: { name: string; tool: string } };
type Id = { Params: { id: string } };

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The admin check: a constant-time comparison of the bearer token with the configured one. */
function adminHook(token: string) {
  const expected = digest(token);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1]!), expected)) return;
    reply.header('www-authenticate', 'Bearer realm="mcppipe-api"');
    return reply
      .code(401)
      .send({ error: 'unauthorized', message: 'send Authorization: Bearer $MCPPIPE_API_TOKEN' });
  };
}

/** Maps the package's typed errors to HTTP answers; anything else is a 500 without internals. */
function fail(reply: FastifyReply, err: unknown) {
  if (isMcpPipeError(err)) {
    const status = err.code.startsWith('MCPP_EVENTS_UNKNOWN') ? 404 : 400;
    return reply.code(status).send({ error: err.code, message: err.message });
  }
  return reply.code(500).send({ error: 'internal', message: 'internal error' });
}

/**
 * Registers the API routes (call inside an encapsulated plugin).
 *
 * @param app - the plugin instance
 * @param events - the gateway's events
 * @param token - the admin API token
 */
export function apiRoutes(app: FastifyInstance, events: GatewayEvents, token: string): void {
  const { registry, hub, webhooks, pins } = events;
  app.addHook('onRequest', adminHook(token));
  const known = (name: string, reply: FastifyReply) =>
    registry.get(name) !== undefined ||
    (void reply.code(404).send({ error: 'not_found', message: `no server ${JSON.stringify(name)}` }), false);

  app.get('/api/servers', async () => ({
    servers: registry.list().map((s) => ({
      name: s.name,
      phase: s.phase,
      lastChange: new Date(s.lastChangeAt).toISOString(),
      lastError: s.lastError ?? null,
      tools: pins.list(s.name).length,
      changedTools: pins.list(s.name).filter((t) => t.changed).length,
    })),
  }));
  const streams = new Set<EventStream>();
  app.addHook('preClose', async () => streams.forEach((s) => s.close()));
  app.get('/api/servers/stream', (req, reply) => {
    reply.hijack();
    const stream = openEventStream(reply.raw, hub, { lastEventId: req.headers['last-event-id'] });
    streams.add(stream);
    void stream.closed.then(() => streams.delete(stream));
  });
  app.post<Name>('/api/servers/:name/reconnect', async (req, reply) => {
    if (!known(req.params.name, reply)) return reply;
    await registry.reinitialize(req.params.name);
    return { name: req.params.name, phase: registry.get(req.params.name)?.phase };
  });
  app.get<Name>('/api/servers/:name/tools', async (req, reply) => {
    if (!known(req.params.name, reply)) return reply;
    await events.refreshTools(req.params.name);
    return { hold: pins.hold, tools: pins.list(req.params.name) };
  });
  app.post<Tool>('/api/servers/:name/tools/:tool/accept', async (req, reply) => {
    try {
      const tool = pins.accept(req.params.name, req.params.tool);
      registry.toolsChanged(req.params.name);
      return tool;
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.post('/api/webhooks', async (req, reply) => {
    const body = (req.body ?? {}) as { url?: unknown; events?: unknown };
    try {
      const { subscription, secret } = await webhooks.create({ url: body.url, events: body.events });
      return reply.code(201).send({ ...subscription, secret });
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.get('/api/webhooks', async () => ({ webhooks: webhooks.list() }));
  app.delete<Id>('/api/webhooks/:id', async (req, reply) => {
    try {
      await webhooks.remove(req.params.id);
      return reply.code(204).send();
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.get<Id>('/api/webhooks/:id/deliveries', async (req, reply) => {
    try {
      return { deliveries: webhooks.deliveries(req.params.id) };
    } catch (err) {
      return fail(reply, err);
    }
  });
}
