/**
 * The Tools tab's routes (issue 19 API contract, D2 Tools): `GET /api/tunnels/:id/stats?window=1h|24h` (per-tool
 * calls, errors, p50/p95/p99 from `@mcppipe/capture`'s pre-aggregated buckets) and `PUT|DELETE
 * /api/tunnels/:id/stars/:name` (the Tools tab's pins). Owner-scoped.
 *
 * @module
 */
import type { ExchangeCapture } from '@mcppipe/capture';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedTunnel } from './exchangesScope.js';

/** What the stats routes need. */
export interface StatsDeps {
  capture: ExchangeCapture;
  known: (id: string) => boolean;
  /** Whether a tool's definition changed since it was pinned (E4); default: never. */
  changed?: (id: string, name: string) => boolean;
}

const WINDOWS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000 };

/**
 * Registers the routes (inside the encapsulated plugin of `exchangesApi`, after its caller hook).
 *
 * @param app - the plugin instance
 * @param deps - the capture and the caller resolution
 */
export function statsRoutes(app: FastifyInstance, deps: StatsDeps): void {
  const { capture, known } = deps;
  app.get<{ Params: { id: string }; Querystring: { window?: string } }>(
    '/api/tunnels/:id/stats',
    async (req, reply) => {
      const id = ownedTunnel(req, reply, known);
      if (id === undefined) return reply;
      const window = req.query.window ?? '1h';
      const ms = WINDOWS[window];
      if (ms === undefined)
        return reply.code(400).send({ error: 'bad_request', message: 'window must be 1h or 24h' });
      const stars = capture.stars(id);
      const tools = capture.stats(id, ms).map((row) => ({
        ...row,
        changed: deps.changed?.(id, row.name) ?? false,
        pinned: stars.has(row.name),
      }));
      tools.sort((a, b) => Number(b.pinned) - Number(a.pinned)); // stable: pinned first, then by name
      return { window, tools };
    },
  );
  const star =
    (on: boolean) =>
    async (req: FastifyRequest<{ Params: { id: string; name: string } }>, reply: FastifyReply) => {
      const id = ownedTunnel(req, reply, known);
      if (id === undefined) return reply;
      capture.setStar(id, req.params.name, on);
      return reply.code(204).send();
    };
  app.put('/api/tunnels/:id/stars/:name', star(true));
  app.delete('/api/tunnels/:id/stars/:name', star(false));
}
