/**
 * The gateway's own servers in the API (E2, E4), for the admin token: `GET /api/servers`, `GET /api/servers/stream`
 * (SSE, `Last-Event-ID`), `POST /api/servers/:name/reconnect`, `GET /api/servers/:name/tools`,
 * `POST /api/servers/:name/tools/:tool/accept`, and `/api/webhooks*`.
 *
 * @module
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayEvents } from '../events/scope.js';
import { fail, notFound } from './reply.js';
import { eventStreams } from './streams.js';
import { webhookAnswer, webhookRoutes } from './webhooks.js';

type Name = { Params: { name: string } };
type Tool = { Params: { name: string; tool: string } };

/**
 * Registers the routes (inside the `/api` plugin, behind its caller check).
 *
 * @param app - the plugin instance
 * @param events - the gateway's events
 */
export function serverRoutes(app: FastifyInstance, events: GatewayEvents): void {
  const { registry, hub, webhooks, pins } = events;
  const known = (name: string, reply: FastifyReply) =>
    registry.get(name) !== undefined || (void notFound(reply, `no server ${JSON.stringify(name)}`), false);
  const stream = eventStreams(app);

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
  app.get('/api/servers/stream', (req, reply) => stream(req, reply, hub));
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
  webhookRoutes(app, '/api/webhooks', (_req, _reply, w) => webhookAnswer(webhooks, w));
}
