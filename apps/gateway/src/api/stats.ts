/**
 * The Tools tab's routes (issue 19 API contract, D2 Tools): `GET /api/tunnels/:id/stats?window=1h|24h` (per-tool
 * calls, errors, p50/p95/p99 from `@mcppipe/capture`'s pre-aggregated buckets, each with the `changed` marker of the
 * tunnel's tool pins, E4) and `PUT|DELETE /api/tunnels/:id/stars/:name` (the Tools tab's pins). Owner-scoped.
 *
 * @module
 */
import type { ExchangeCapture, ToolStatsRow } from '@mcppipe/capture';
import type { ToolSnapshot } from '@mcppipe/events';
import type { NodeCallAnswer, TunnelCluster } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { onHoldingNode, sendAnswer } from './holdingNode.js';
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
  /** Whether this node holds the tunnel now (many nodes: else the holding node answers). Default: `known`. */
  held?: (id: string) => boolean;
  /** Many nodes (S2): the ownership records and the node link; undefined on one node. */
  cluster?: TunnelCluster | undefined;
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

/** Names of the node calls of the stats routes (answered by the node holding the tunnel, issue 20). */
export const STATS_CALLS = { stats: 'stats', star: 'star' } as const;

/**
 * Registers the routes (inside the `/api` plugin, after its caller hook). With many nodes the stats and stars of a
 * tunnel held by another node are that node's (asked over the node link, {@link onHoldingNode}): the same answer
 * from every node.
 *
 * @param app - the plugin instance
 * @param deps - the capture, the tunnel lookups, the tunnels' pins and the cluster
 */
export function statsRoutes(app: FastifyInstance, deps: StatsDeps): void {
  const { capture, known } = deps;
  const route = { held: deps.held ?? known, known, cluster: deps.cluster };
  const statsHere = async (id: string, account: string, window: string): Promise<NodeCallAnswer> => {
    const ms = WINDOWS[window];
    if (ms === undefined)
      return { status: 400, body: { error: 'bad_request', message: 'window must be 1h or 24h' } };
    const pins = (await deps.pins?.(id, account)) ?? [];
    return {
      status: 200,
      body: { window, tools: statsView(capture.stats(id, ms), pins, capture.stars(id)) },
    };
  };
  const starHere = (id: string, name: string, on: boolean): NodeCallAnswer => {
    capture.setStar(id, name, on);
    return { status: 204, body: null };
  };
  deps.cluster?.handle(STATS_CALLS.stats, async (p) => {
    const { tunnel, account, window } = (p ?? {}) as Record<string, unknown>;
    if (typeof tunnel !== 'string' || typeof account !== 'string' || typeof window !== 'string')
      return BAD_CALL;
    return statsHere(tunnel, account, window);
  });
  deps.cluster?.handle(STATS_CALLS.star, async (p) => {
    const { tunnel, name, on } = (p ?? {}) as Record<string, unknown>;
    if (typeof tunnel !== 'string' || typeof name !== 'string' || typeof on !== 'boolean') return BAD_CALL;
    return starHere(tunnel, name, on);
  });
  app.get<{ Params: { id: string }; Querystring: { window?: string } }>(
    '/api/tunnels/:id/stats',
    async (req, reply) => {
      const t = ownedTunnel(req, reply, (t) => t);
      if (t === undefined) return reply;
      const window = req.query.window ?? '1h';
      const payload = { tunnel: t.id, account: t.account, window };
      const here = () => statsHere(t.id, t.account, window);
      return sendAnswer(reply, await onHoldingNode(t, route, { name: STATS_CALLS.stats, payload, here }));
    },
  );
  const star =
    (on: boolean) =>
    async (req: FastifyRequest<{ Params: { id: string; name: string } }>, reply: FastifyReply) => {
      const t = ownedTunnel(req, reply, (t) => t);
      if (t === undefined) return reply;
      const payload = { tunnel: t.id, name: req.params.name, on };
      const here = () => starHere(t.id, req.params.name, on);
      return sendAnswer(reply, await onHoldingNode(t, route, { name: STATS_CALLS.star, payload, here }));
    };
  app.put('/api/tunnels/:id/stars/:name', star(true));
  app.delete('/api/tunnels/:id/stars/:name', star(false));
}

const BAD_CALL: NodeCallAnswer = { status: 400, body: { error: 'bad_request', message: 'bad node call' } };
