/**
 * The relay's per-tunnel API (E2–E4), for the owner (API key or dashboard session): `GET /api/tunnels`,
 * `GET /api/tunnels/:id/upstreams` (snapshot), `GET /api/tunnels/:id/upstreams/stream` (SSE of the tunnel's events,
 * `Last-Event-ID`), `POST /api/tunnels/:id/upstreams/:name/reconnect`, `GET /api/tunnels/:id/tools`,
 * `POST /api/tunnels/:id/tools/:name/accept`, and `/api/tunnels/:id/webhooks*`. An unknown tunnel and another
 * account's answer the same 404. The scopes are `TunnelScopes` of `@mcppipe/events`; snapshot calls go to the CLI
 * over the tunnel. With many nodes (S2) every route answers on any node: a tunnel another node holds is listed
 * (`tunnelList.ts`), its requests are answered by that node (`scopeCall.ts`, {@link onHoldingNode}) and its events
 * streamed from it (`remoteEvents.ts`).
 *
 * @module
 */
import type { McpPipeEvent, TunnelScopes, TunnelSummary } from '@mcppipe/events';
import type { NodeCallAnswer, TunnelCluster } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { onHoldingNode, sendAnswer } from './holdingNode.js';
import { ownedTunnel, type OwnedTunnelId } from './owned.js';
import { RemoteEventFeeds } from './remoteEvents.js';
import { notFound } from './reply.js';
import { SCOPE_CALLS, scopeAnswer, scopeCallOf, type ScopeOp } from './scopeCall.js';
import { eventStreams } from './streams.js';
import { heldSummaries, mergeTunnelLists, remoteSummaries, withSavedAuth } from './tunnelList.js';
import { webhookRoutes } from './webhooks.js';

type Id = { Params: { id: string } };
type Named = { Params: { id: string; name: string } };

/** What the tunnel routes need. */
export interface TunnelRoutesDeps {
  /** The relay's tunnel scopes. */
  scopes: TunnelScopes;
  /** Many nodes (S2): the ownership records and the node link; undefined on one node. */
  cluster?: TunnelCluster | undefined;
  /** A tunnel's public URL (listing a tunnel whose holding node does not answer). Default: none (''). */
  publicUrl?: ((subdomain: string, account: string) => string) | undefined;
  /** The auth mode the owner saved in a tunnel's settings (listed over the connect-time one). Default: none. */
  savedAuth?: ((id: string) => string | undefined) | undefined;
  /** How often the events of a tunnel another node holds are asked for, ms. Default 1 000. */
  eventsPollMs?: number;
}

const BAD_CALL: NodeCallAnswer = { status: 400, body: { error: 'bad_request', message: 'bad node call' } };
const noTunnel = (id: string): NodeCallAnswer => ({
  status: 404,
  body: { error: 'not_found', message: `no tunnel ${JSON.stringify(id)}` },
});

/**
 * Registers the routes (inside the `/api` plugin, behind its caller check) and, with many nodes, the node calls
 * that answer them for other nodes (`tunnel.scope`, `tunnel.list`; the holder checks the account: another
 * account's tunnel is the same 404).
 *
 * @param app - the plugin instance
 * @param deps - the scopes and, with many nodes, the cluster
 */
export function tunnelRoutes(app: FastifyInstance, deps: TunnelRoutesDeps): void {
  const { scopes: tunnels, cluster } = deps;
  const accountOf = (req: FastifyRequest) =>
    req.apiCaller?.kind === 'account' ? req.apiCaller.account : undefined;
  const stream = eventStreams(app);
  const feeds = new RemoteEventFeeds({ ...(deps.eventsPollMs && { pollMs: deps.eventsPollMs }) });
  app.addHook('preClose', async () => feeds.closeAll());

  /** Answers a request of the caller's tunnel where the tunnel is held (here, another node, or here when idle). */
  const answer = (t: OwnedTunnelId, op: ScopeOp): Promise<NodeCallAnswer> => {
    const scope = tunnels.get(t.id, t.account);
    const route = {
      held: () => scope?.summary.connected === true,
      known: () => scope !== undefined,
      cluster,
    };
    const payload = { tunnel: t.id, account: t.account, op };
    return onHoldingNode(t, route, { name: SCOPE_CALLS.scope, payload, here: () => scopeAnswer(scope!, op) });
  };
  const route = async (req: FastifyRequest, reply: FastifyReply, op: ScopeOp) => {
    const t = ownedTunnel(req, reply, (t) => t);
    return t === undefined ? reply : sendAnswer(reply, await answer(t, op));
  };
  cluster?.handle(SCOPE_CALLS.scope, async (payload) => {
    const call = scopeCallOf(payload);
    if (call === undefined) return BAD_CALL;
    const scope = tunnels.get(call.tunnel, call.account); // never forwarded again
    return scope === undefined ? noTunnel(call.tunnel) : scopeAnswer(scope, call.op);
  });
  cluster?.handle(SCOPE_CALLS.list, async (payload) => heldSummaries(tunnels, payload));

  app.get('/api/tunnels', async (req) => {
    const account = accountOf(req) ?? '';
    const local = tunnels.list(account);
    const saved = (list: TunnelSummary[]) => withSavedAuth(list, deps.savedAuth ?? (() => undefined));
    if (cluster === undefined) return { tunnels: saved(local) };
    const publicUrl = deps.publicUrl ?? (() => '');
    const remote = await remoteSummaries({ cluster, publicUrl }, account);
    return { tunnels: saved(mergeTunnelLists(account, local, remote)) };
  });
  app.get<Id>('/api/tunnels/:id/upstreams', (req, reply) => route(req, reply, { op: 'upstreams' }));
  app.get<Id>('/api/tunnels/:id/upstreams/stream', async (req, reply) => {
    const t = ownedTunnel(req, reply, (t) => t);
    if (t === undefined) return reply;
    const scope = tunnels.get(t.id, t.account);
    const remote =
      scope?.summary.connected !== true && (await cluster?.remoteOwner(t.subdomain, t.account)) !== undefined;
    if (!remote && scope === undefined) return notFound(reply, `no tunnel ${JSON.stringify(t.id)}`);
    if (!remote) {
      stream(req, reply, scope!.hub);
      return reply;
    }
    reply.hijack();
    const fetch = async (after: string | undefined) => {
      const out = await answer(t, after === undefined ? { op: 'events' } : { op: 'events', after });
      const events = (out.body as { events?: McpPipeEvent[] } | null)?.events;
      return out.status === 200 && Array.isArray(events) ? events : undefined;
    };
    feeds.open(t.id, reply.raw, { lastEventId: req.headers['last-event-id'], fetch });
    return reply;
  });
  app.post<Named>('/api/tunnels/:id/upstreams/:name/reconnect', (req, reply) =>
    route(req, reply, { op: 'reconnect', name: req.params.name }),
  );
  app.get<Id>('/api/tunnels/:id/tools', (req, reply) => route(req, reply, { op: 'tools' }));
  app.post<Named>('/api/tunnels/:id/tools/:name/accept', (req, reply) =>
    route(req, reply, { op: 'accept', name: req.params.name }),
  );
  webhookRoutes(app, '/api/tunnels/:id/webhooks', async (req, reply, webhook) => {
    const t = ownedTunnel(req, reply, (t) => t);
    return t === undefined ? undefined : answer(t, { op: 'webhooks', webhook });
  });
}
