/**
 * The capture routes of a tunnel (issue 19 API contract, D2 Live and Inspector): `GET /api/tunnels/:id/exchanges`
 * (filters `upstream`, `method`, `status`, `caller`, `limit`), `GET …/exchanges/stream` (SSE, `event: exchange`),
 * `GET …/exchanges/:eid`, `POST …/exchanges/:eid/replay`. Owner-scoped; the logic is `@mcppipe/capture`'s.
 *
 * @module
 */
import { replayRequestHeaders } from '@mcppipe/capture';
import type { ExchangeCapture, ExchangeFilter } from '@mcppipe/capture';
import { isMcpPipeError } from '@mcppipe/errors';
import type { Tunnel } from '@mcppipe/tunnel';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerName } from './exchangesScope.js';
import { LiveFanout } from './liveFanout.js';
import { ownedTunnel } from './owned.js';
import { notFound } from './reply.js';

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
  const owned = (req: FastifyRequest, reply: FastifyReply) =>
    ownedTunnel(req, reply, (t) => (known(t.id) ? t.id : undefined));
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
  const live = new LiveFanout(capture, { ...(deps.pingMs !== undefined && { pingMs: deps.pingMs }) });
  app.addHook('preClose', async () => live.closeAll());
  app.get<{ Params: { id: string } }>(`${base}/stream`, (req, reply) => {
    const id = owned(req, reply);
    if (id === undefined) return reply;
    reply.hijack();
    live.open(id, reply.raw);
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
    const id = owned(req, reply);
    if (id === undefined) return reply;
    const tunnel = deps.live(id);
    if (tunnel === undefined)
      return reply
        .code(503)
        .send({ error: 'tunnel_offline', message: 'the tunnel is not connected: start it again' });
    const edited = (req.body as { request?: unknown } | undefined)?.request;
    const forwarded = { 'x-forwarded-for': req.ip, 'x-forwarded-host': new URL(tunnel.publicUrl).host };
    try {
      const out = await capture.replay(id, req.params.eid, {
        ...(edited !== undefined && { request: edited }),
        caller: callerName(req.apiCaller, deps.keyName),
        zeroKnowledge: tunnel.zeroKnowledge,
        captureValues: deps.captureValues?.(id) ?? false,
        send: async (body) => {
          const headers = {
            ...replayRequestHeaders(capture.replaySource(id, req.params.eid)?.headers ?? {}, body),
            ...forwarded,
            'x-forwarded-proto': new URL(tunnel.publicUrl).protocol.slice(0, -1),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          };
          return tunnel.request({ method: 'POST', path: '/mcp', headers, body });
        },
      });
      if (out === undefined)
        return reply
          .code(404)
          .send({ error: 'not_found', message: `no exchange ${JSON.stringify(req.params.eid)}` });
      if (out === 'not_replayable')
        return reply.code(400).send({
          error: 'not_replayable',
          message:
            'the original body was not kept (cut at the cap, or a zero-knowledge tunnel): send {"request": …}',
        });
      return reply.code(201).send(out);
    } catch (err) {
      if (isMcpPipeError(err, 'MCPP_CAPTURE_INVALID_REQUEST'))
        return reply.code(400).send({ error: 'bad_request', message: err.message });
      if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE'))
        return reply
          .code(503)
          .send({ error: 'tunnel_offline', message: 'the tunnel dropped during the replay' });
      throw err;
    }
  });
}
