/**
 * The replay of one captured exchange (issue 19 D2 Inspector) on the node holding its tunnel, as an HTTP answer:
 * the route runs it for a tunnel this node holds, and the `replay` node call runs it here for a node that does not
 * (issue 20: the original bytes never leave the holding node, so the replay is made and recorded where they are).
 *
 * @module
 */
import { replayRequestHeaders } from '@mcppipe/capture';
import type { ExchangeCapture } from '@mcppipe/capture';
import { isMcpPipeError } from '@mcppipe/errors';
import type { NodeCallAnswer, Tunnel } from '@mcppipe/tunnel';

/** The name of the node call of a replay. */
export const REPLAY_CALL = 'replay';

/** What a replay needs to know of the API request (the payload of the `replay` node call). */
export interface ReplayArgs {
  /** The tunnel id (`<subdomain>--<account>`), already checked to be the caller's. */
  tunnel: string;
  /** The exchange to replay. */
  eid: string;
  /** The edited JSON-RPC request, if any (`{"request": …}` of the API body). */
  request?: unknown;
  /** The API caller's display name (the new exchange's `caller`). */
  caller: string | null;
  /** The API caller's address (`X-Forwarded-For` of the replayed request). */
  ip: string;
}

/** What {@link replayHere} needs of this node. */
export interface ReplayDeps {
  capture: ExchangeCapture;
  /** The live tunnel of an id on this node. */
  live: (id: string) => Tunnel | undefined;
  /** Whether the owner turned capture of values on for the tunnel. Default: off. */
  captureValues?: (id: string) => boolean;
}

const offline = (message: string): NodeCallAnswer => ({
  status: 503,
  body: { error: 'tunnel_offline', message },
});

/** The 503 of a tunnel held by no node. */
export const TUNNEL_NOT_CONNECTED = offline('the tunnel is not connected: start it again');

/**
 * Replays an exchange through the tunnel this node holds and records the answer as a new exchange.
 *
 * @param deps - this node's capture and tunnels
 * @param args - the tunnel, the exchange, the edited request, the caller
 * @returns 201 with the new exchange's summary; 404 unknown exchange; 400 not replayable or a bad `request`; 503
 *   when this node does not hold the tunnel (a node call never forwards again) or it dropped during the replay
 */
export async function replayHere(deps: ReplayDeps, args: ReplayArgs): Promise<NodeCallAnswer> {
  const { capture } = deps;
  const tunnel = deps.live(args.tunnel);
  if (tunnel === undefined) return TUNNEL_NOT_CONNECTED;
  const url = new URL(tunnel.publicUrl);
  try {
    const out = await capture.replay(args.tunnel, args.eid, {
      ...(args.request !== undefined && { request: args.request }),
      caller: args.caller,
      zeroKnowledge: tunnel.zeroKnowledge,
      captureValues: deps.captureValues?.(args.tunnel) ?? false,
      send: async (body) => {
        const headers = {
          ...replayRequestHeaders(capture.replaySource(args.tunnel, args.eid)?.headers ?? {}, body),
          'x-forwarded-for': args.ip,
          'x-forwarded-host': url.host,
          'x-forwarded-proto': url.protocol.slice(0, -1),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        return tunnel.request({ method: 'POST', path: '/mcp', headers, body });
      },
    });
    if (out === undefined)
      return {
        status: 404,
        body: { error: 'not_found', message: `no exchange ${JSON.stringify(args.eid)}` },
      };
    if (out === 'not_replayable')
      return {
        status: 400,
        body: {
          error: 'not_replayable',
          message:
            'the original body was not kept (cut at the cap, or a zero-knowledge tunnel): send {"request": …}',
        },
      };
    return { status: 201, body: out };
  } catch (err) {
    if (isMcpPipeError(err, 'MCPP_CAPTURE_INVALID_REQUEST'))
      return { status: 400, body: { error: 'bad_request', message: err.message } };
    if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')) return offline('the tunnel dropped during the replay');
    throw err;
  }
}

/**
 * Reads the payload of a `replay` node call.
 *
 * @param payload - what the calling node sent
 * @returns the arguments, or undefined when malformed
 */
export function replayArgsOf(payload: unknown): ReplayArgs | undefined {
  const p = payload as Partial<ReplayArgs> | null;
  if (p === null || typeof p !== 'object') return undefined;
  if (typeof p.tunnel !== 'string' || typeof p.eid !== 'string' || typeof p.ip !== 'string') return undefined;
  if (p.caller !== null && typeof p.caller !== 'string') return undefined;
  return {
    tunnel: p.tunnel,
    eid: p.eid,
    caller: p.caller ?? null,
    ip: p.ip,
    ...(p.request !== undefined && { request: p.request }),
  };
}
