/**
 * The Tools tab's routes (issue 19 API contract, D2 Tools): `GET /api/tunnels/:id/stats?window=1h|24h` (per-tool
 * calls, errors, p50/p95/p99 from `@mcppipe/capture`'s pre-aggregated buckets, each with the `changed` marker of the
 * tunnel's tool pins, E4) and `PUT|DELETE /api/tunnels/:id/stars/:name` (the Tools tab's pins). Owner-scoped.
 *
 * @module
 */
import type { ExchangeCapture, ToolStatsRow } from '@mcppipe/capture';
import type { ToolSnapshot } from '@mcppipe/events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedTunnel } from './owned.js';

/** What the stats routes need. */
export interface StatsDeps {
  capture: ExchangeCapture;
  known: (id: string) => boolean;
  /**
   * The tunnel's pinned tools (E4; `TunnelScope.tools` of `@mcppipe/events`, read from the CLI over the tunnel,
   * which lists its upstreams' tools again first). Default: none (nothing is `changed`).
   */
  pins?: (id: string, account: string) => Promise<readonly ToolSnapshot[]>;
}

/** One row of `GET /api/tunnels/:id/stats`. */
export interface ToolStatsView extends ToolStatsRow {
  /** The tool's definition differs from its pin (E4): the owner may accept it. */
  changed: boolean;
  /** Starred by the owner (shown first). */
  pinned: boolean;
}

const WINDOWS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000 };
const exposed = (upstream: string | null, name: string) =>
  !upstream || name.startsWith(`${upstream}__`) ? name : `${upstream}__${name}`;

/**
 * The stats rows with their `changed` and star marks; a changed tool without calls in the window still gets a row
 * (with zero calls), so a held-back tool can be accepted from the Tools tab.
 *
 * @param rows - the capture's rows for the window
 * @param pins - the tunnel's pinned tools
 * @param stars - the starred exposed names
 * @returns the rows, starred first (stable: then as the capture ordered them)
 */
export function statsView(
  rows: readonly ToolStatsRow[],
  pins: readonly ToolSnapshot[],
  stars: ReadonlySet<string>,
): ToolStatsView[] {
  const changed = new Set(pins.filter((p) => p.changed).map((p) => p.name));
  const out: ToolStatsView[] = rows.map((row) => {
    const name = exposed(row.upstream, row.name);
    return { ...row, changed: changed.delete(name), pinned: stars.has(row.name) };
  });
  for (const p of pins)
    if (changed.has(p.name))
      out.push({
        upstream: p.upstream,
        name: p.name,
        calls: 0,
        errors: 0,
        errorRate: 0,
        p50: 0,
        p95: 0,
        p99: 0,
        changed: true,
        pinned: stars.has(p.name),
      });
  return out.sort((a, b) => Number(b.pinned) - Number(a.pinned));
}

/**
 * Registers the routes (inside the `/api` plugin, after its caller hook).
 *
 * @param app - the plugin instance
 * @param deps - the capture, the tunnel lookup and the tunnels' pins
 */
export function statsRoutes(app: FastifyInstance, deps: StatsDeps): void {
  const { capture, known } = deps;
  const owned = (req: FastifyRequest, reply: FastifyReply) =>
    ownedTunnel(req, reply, (t) => (known(t.id) ? t : undefined));
  app.get<{ Params: { id: string }; Querystring: { window?: string } }>(
    '/api/tunnels/:id/stats',
    async (req, reply) => {
      const t = owned(req, reply);
      if (t === undefined) return reply;
      const window = req.query.window ?? '1h';
      const ms = WINDOWS[window];
      if (ms === undefined)
        return reply.code(400).send({ error: 'bad_request', message: 'window must be 1h or 24h' });
      const pins = (await deps.pins?.(t.id, t.account)) ?? [];
      return { window, tools: statsView(capture.stats(t.id, ms), pins, capture.stars(t.id)) };
    },
  );
  const star =
    (on: boolean) =>
    async (req: FastifyRequest<{ Params: { id: string; name: string } }>, reply: FastifyReply) => {
      const t = owned(req, reply);
      if (t === undefined) return reply;
      capture.setStar(t.id, req.params.name, on);
      return reply.code(204).send();
    };
  app.put('/api/tunnels/:id/stars/:name', star(true));
  app.delete('/api/tunnels/:id/stars/:name', star(false));
}
