/**
 * The relay's per-tunnel API (E2–E4), for the owner (API key or dashboard session): `GET /api/tunnels`,
 * `GET /api/tunnels/:id/upstreams` (snapshot), `GET /api/tunnels/:id/upstreams/stream` (SSE of the tunnel's events,
 * `Last-Event-ID`), `POST /api/tunnels/:id/upstreams/:name/reconnect`, `GET /api/tunnels/:id/tools`,
 * `POST /api/tunnels/:id/tools/:name/accept`, and `/api/tunnels/:id/webhooks*`. An unknown tunnel and another
 * account's answer the same 404. The scopes are `TunnelScopes` of `@mcppipe/events`; snapshot calls go to the CLI
 * over the tunnel.
 *
 * @module
 */
import type { TunnelScope, TunnelScopes } from '@mcppipe/events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedTunnel } from './owned.js';
import { eventStreams } from './streams.js';
import { webhookRoutes } from './webhooks.js';

type Id = { Params: { id: string } };
type Named = { Params: { id: string; name: string } };

/**
 * Registers the routes (inside the `/api` plugin, behind its caller check).
 *
 * @param app - the plugin instance
 * @param tunnels - the relay's tunnel scopes
 */
export function tunnelRoutes(app: FastifyInstance, tunnels: TunnelScopes): void {
  const accountOf = (req: FastifyRequest) =>
    req.apiCaller?.kind === 'account' ? req.apiCaller.account : undefined;
  /** The caller's tunnel, or undefined when the 404 was sent. */
  const scoped = (req: FastifyRequest, reply: FastifyReply): TunnelScope | undefined =>
    ownedTunnel(req, reply, (t) => tunnels.get(t.id, t.account));
  const stream = eventStreams(app);
  const pass = async (req: FastifyRequest, reply: FastifyReply, path: (name: string) => string) => {
    const scope = scoped(req, reply);
    if (!scope) return reply;
    const { name } = req.params as { name: string };
    const { status, body } = await scope.call('POST', path(encodeURIComponent(name)));
    return reply.code(status).send(body);
  };

  app.get('/api/tunnels', async (req) => ({ tunnels: tunnels.list(accountOf(req) ?? '') }));
  app.get<Id>('/api/tunnels/:id/upstreams', async (req, reply) => {
    const scope = scoped(req, reply);
    return scope ? { upstreams: await scope.upstreams() } : reply;
  });
  app.get<Id>('/api/tunnels/:id/upstreams/stream', (req, reply) => {
    const scope = scoped(req, reply);
    if (scope) stream(req, reply, scope.hub);
  });
  app.post<Named>('/api/tunnels/:id/upstreams/:name/reconnect', (req, reply) =>
    pass(req, reply, (n) => `/upstreams/${n}/reconnect`),
  );
  app.get<Id>('/api/tunnels/:id/tools', async (req, reply) => {
    const scope = scoped(req, reply);
    return scope ? await scope.tools() : reply;
  });
  app.post<Named>('/api/tunnels/:id/tools/:name/accept', (req, reply) =>
    pass(req, reply, (n) => `/tools/${n}/accept`),
  );
  webhookRoutes(app, '/api/tunnels/:id/webhooks', async (req, reply) => scoped(req, reply)?.webhooks);
}
