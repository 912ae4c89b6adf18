/**
 * The per-tunnel event-scope routes as plain requests (E2–E4; issue 20's scale-out gap): each `/api/tunnels/:id/…`
 * request of the Upstreams and Tools sections, the tunnel's webhooks and the events after an id becomes a
 * {@link ScopeOp}, answered by {@link scopeAnswer} on the node holding the tunnel: here, or on another node over
 * the node link (one named node call, `SCOPE_CALLS.scope`, whose handler never forwards again).
 *
 * @module
 */
import type { McpPipeEvent, TunnelScope } from '@mcppipe/events';
import type { NodeCallAnswer } from '@mcppipe/tunnel';
import { webhookAnswer, webhookOpOf, type WebhookOp } from './webhooks.js';

/** Names of the node calls of the tunnel-scope routes. */
export const SCOPE_CALLS = {
  /** One {@link ScopeOp} of a tunnel the called node holds. */
  scope: 'tunnel.scope',
  /** The summaries of an account's tunnels the called node holds (`GET /api/tunnels` on another node). */
  list: 'tunnel.list',
} as const;

/** One request of a tunnel's event scope, as plain JSON (it crosses the node link as is). */
export type ScopeOp =
  | { op: 'upstreams' }
  | { op: 'tools' }
  | { op: 'reconnect'; name: string }
  | { op: 'accept'; name: string }
  | { op: 'webhooks'; webhook: WebhookOp }
  /** The hub's buffered events after `after` (`EventHub.since`); all of them without `after`. */
  | { op: 'events'; after?: string };

/** A {@link SCOPE_CALLS.scope} payload: the tunnel, the caller's account (checked by the holder) and the request. */
export interface ScopeCall {
  tunnel: string;
  account: string;
  op: ScopeOp;
}

/**
 * Answers one request of a tunnel's scope (the one implementation of each route; scope calls go to the CLI over
 * the tunnel).
 *
 * @param scope - the tunnel's scope on this node
 * @param op - the request
 * @returns the route's answer: `{ upstreams }`, the tools snapshot, the CLI's answer to a reconnect or accept, a
 *   webhook answer ({@link webhookAnswer}), or `{ events }` (oldest first)
 */
export async function scopeAnswer(scope: TunnelScope, op: ScopeOp): Promise<NodeCallAnswer> {
  switch (op.op) {
    case 'upstreams':
      return { status: 200, body: { upstreams: await scope.upstreams() } };
    case 'tools':
      return { status: 200, body: await scope.tools() };
    case 'reconnect':
      return scope.call('POST', `/upstreams/${encodeURIComponent(op.name)}/reconnect`);
    case 'accept':
      return scope.call('POST', `/tools/${encodeURIComponent(op.name)}/accept`);
    case 'webhooks':
      return webhookAnswer(await scope.webhooks, op.webhook);
    case 'events': {
      const events = op.after === undefined ? scope.hub.buffered() : scope.hub.since(op.after);
      return { status: 200, body: { events: newestWithin(events, MAX_EVENTS_ANSWER_BYTES) } };
    }
    default:
      return op satisfies never;
  }
}

/** Most bytes of events in one `events` answer (a node call's answer is at most 1 MiB). */
export const MAX_EVENTS_ANSWER_BYTES = 512 * 1024;

/**
 * The newest events whose JSON fits in `maxBytes` (the older ones of a larger batch are left out: the asking node
 * resumes after the newest).
 *
 * @param events - oldest first
 * @param maxBytes - the budget, bytes of JSON
 * @returns a tail of `events`, oldest first
 */
export function newestWithin(events: readonly McpPipeEvent[], maxBytes: number): McpPipeEvent[] {
  let bytes = 0;
  let from = events.length;
  while (from > 0 && (bytes += Buffer.byteLength(JSON.stringify(events[from - 1]))) <= maxBytes) from--;
  return events.slice(from);
}

const str = (v: unknown): v is string => typeof v === 'string';

/**
 * A {@link SCOPE_CALLS.scope} payload read back on the holding node (a peer sent it: each member is checked).
 *
 * @param payload - the node call's JSON payload
 * @returns the call, or undefined when it is not one (answer 400)
 */
export function scopeCallOf(payload: unknown): ScopeCall | undefined {
  const { tunnel, account, op } = (payload ?? {}) as Record<string, unknown>;
  if (!str(tunnel) || !str(account)) return undefined;
  const o = (op ?? {}) as Record<string, unknown>;
  let read: ScopeOp | undefined;
  if (o['op'] === 'upstreams' || o['op'] === 'tools') read = { op: o['op'] };
  else if ((o['op'] === 'reconnect' || o['op'] === 'accept') && str(o['name']))
    read = { op: o['op'], name: o['name'] };
  else if (o['op'] === 'events' && (o['after'] === undefined || str(o['after'])))
    read = str(o['after']) ? { op: 'events', after: o['after'] } : { op: 'events' };
  else if (o['op'] === 'webhooks') {
    const webhook = webhookOpOf(o['webhook']);
    if (webhook) read = { op: 'webhooks', webhook };
  }
  return read && { tunnel, account, op: read };
}
