/**
 * The capture routes of a tunnel (issue 19 API contract, D2 Live and Inspector): `GET /api/tunnels/:id/exchanges`
 * (filters `upstream`, `method`, `status`, `caller`, `limit`), `GET …/exchanges/stream` (SSE, `event: exchange`),
 * `GET …/exchanges/:eid`, `POST …/exchanges/:eid/replay`. Owner-scoped; the logic is `@mcppipe/capture`'s.
 *
 * @module
 */
import type { ExchangeCapture, ExchangeFilter } from '@mcppipe/capture';
import type { Tunnel, TunnelCluster } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerName } from './exchangesScope.js';
import { onHoldingNode, sendAnswer } from './holdingNode.js';
import { LiveFanout } from './liveFanout.js';
import { ownedTunnel } from './owned.js';
import { notFound } from './reply.js';
import { REPLAY_CALL, TUNNEL_NOT_CONNECTED, replayArgsOf, replayHere } from './replayRun.js';

/** What the capture routes need. */
export interface ExchangesDeps {
  capture: ExchangeCapture;
  /** Whether the relay has seen the tunnel id (live or not). */
  known: (id: string) => boolean;
  /** The live tunnel of an id. */
  live: (id: string) => Tunnel | undefined;
  /** The name of an API key by id. */
  keyName: (keyId: string) => string;
  /** Whether the owner turned capture of values on for the tunnel. Default: off. */
  captureValues?: (id: string) => boolean;
  /** Interval of the SSE `: ping` comment, ms. Default 15 000. */
  pingMs?: number;
  /** Many nodes (S2): replay and Live of a tunnel held by another node. */
  cluster?: TunnelCluster | undefined;
}

type Params = { Params: { id: string; eid: string } };
type ListQuery = { Params: { id: string }; Querystring: Record<string, string | undefined> };
const STATUSES = new Set(['ok', 'error', 'isError']);

function filterOf(q: Record<string, string | undefined>): ExchangeFilter | string {
  const f: ExchangeFilter = {};
  if (q['status'] !== undefined) {
    if (!STATUSES.has(q['status'])) return 'status must be one of ok, error, isError';
    f.status = q['status'] as ExchangeFilter['status'];
  }
  if (q['limit'] !== undefined) {
    const n = Number(q['limit']);
    if (!Number.isInteger(n) || n < 1 || n > 1000) return 'limit must be an integer in 1..1000';
    f.limit = n;
  }
  for (const k of ['upstream', 'method', 'caller'] as const) if (q[k]) f[k] = q[k];
  return f;
}

/**
 * Registers the routes (inside the encapsulated plugin of `exchangesApi`, after its caller hook).
 *
 * @param app - the plugin instance
 * @param deps - the capture, caller resolution and tunnel lookups
 */
export function exchangesRoutes(app: FastifyInstance, deps: ExchangesDeps): void {
  const { capture, known } = deps;
  const base = '/api/tunnels/:id/exchanges';
  // many nodes (S1): the ring shared in the store also knows the tunnels other nodes hold (404 when it has none)
  const ownedShared = async (req: FastifyRequest, reply: FastifyReply) => {
    const id = ownedTunnel(req, reply, (t) => (known(t.id) || capture.isShared ? t.id : undefined));
    if (id === undefined || known(id) || (await capture.listShared(id, { limit: 1 })).length > 0) return id;
    return void notFound(reply, `no tunnel ${JSON.stringify(id)}`);
  };
  app.get<ListQuery>(base, async (req, reply) => {
    const id = await ownedShared(req, reply);
    if (id === undefined) return reply;
    const filter = filterOf(req.query);
    if (typeof filter === 'string') return reply.code(400).send({ error: 'bad_request', message: filter });
    return { exchanges: await capture.listShared(id, filter) };
  });
  const live = new LiveFanout(capture, {
    ...(deps.pingMs !== undefined && { pingMs: deps.pingMs }),
    ...(capture.isShared && { held: (id: string) => deps.live(id) !== undefined }),
  });
  deps.cluster?.handle(REPLAY_CALL, async (payload) => {
    const args = replayArgsOf(payload);
    if (args === undefined)
      return { status: 400, body: { error: 'bad_request', message: 'bad replay call' } };
    return replayHere(deps, args);
  });
  app.addHook('preClose', async () => live.closeAll());
  app.get<{ Params: { id: string } }>(`${base}/stream`, async (req, reply) => {
    const t = ownedTunnel(req, reply, (t) => t);
    if (t === undefined) return reply;
    // many nodes (S2): a tunnel another node holds streams from the shared ring (see LiveFanout)
    if (!known(t.id) && (await deps.cluster?.remoteOwner(t.subdomain, t.account)) === undefined)
      return notFound(reply, `no tunnel ${JSON.stringify(t.id)}`);
    reply.hijack();
    live.open(t.id, reply.raw);
    return reply;
  });
  app.get<Params>(`${base}/:eid`, async (req, reply) => {
    const id = await ownedShared(req, reply);
    if (id === undefined) return reply;
    const detail = await capture.getShared(id, req.params.eid);
    if (detail === undefined)
      return reply
        .code(404)
        .send({ error: 'not_found', message: `no exchange ${JSON.stringify(req.params.eid)}` });
    return detail;
  });
  app.post<Params>(`${base}/:eid/replay`, async (req, reply) => {
    const t = ownedTunnel(req, reply, (t) => t);
    if (t === undefined) return reply;
    const edited = (req.body as { request?: unknown } | undefined)?.request;
    const args = {
      tunnel: t.id,
      eid: req.params.eid,
      caller: callerName(req.apiCaller, deps.keyName),
      ip: req.ip,
      ...(edited !== undefined && { request: edited }),
    };
    // many nodes (S2): a tunnel held by another node is replayed there (it has the original bytes and records it)
    const held = (id: string) => deps.live(id) !== undefined;
    const out = await onHoldingNode(
      t,
      { held, known, cluster: deps.cluster },
      {
        name: REPLAY_CALL,
        payload: args,
        here: () => replayHere(deps, args),
        idle: () => TUNNEL_NOT_CONNECTED,
      },
    );
    return sendAnswer(reply, out);
  });
}
