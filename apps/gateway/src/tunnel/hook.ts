/**
 * The relay's `onRequest` hook (DESIGN.md T4, T5, T6): a request addressed to a tunnel (by `Host` or the
 * `/t/<label>/…` path) is answered here, before the gateway's own Host guard, auth and body parsing: offline
 * → 503 `tunnel_offline`; the tunnel's IP allowlist; its auth mode; then the agent's credentials are stripped,
 * `X-Forwarded-*` set and the request hijacked and streamed through the tunnel (the body is never parsed); a POST's
 * bytes feed the exchange capture's tee as the forwarder moves them.
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import { RELAY_REQUEST_HEADER, SCOPE_PATH } from '@mcppipe/events';
import type { AccountStore, OAuthProvider } from '@mcppipe/oauth';
import { writeTunnelOffline } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CREDENTIAL_HEADERS } from '../pipeline/auth.js';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { Logger } from '../types.js';
import type { ZoneConfig } from './address.js';
import { PRM_PREFIX, addressCache } from './address.js';
import type { TargetFinderDeps } from './targets.js';
import { createTargetFinder } from './targets.js';
import { createRefusalRecorder } from './refusals.js';
import { createTunnelAuth } from './tunnelAuth.js';
import { tunnelId } from '../api/settingsRelay.js';

/** What the hook needs: the zone, the accounts and the authorization server, and what finds a request's target. */
export interface RelayHookDeps extends TargetFinderDeps {
  zone: ZoneConfig;
  accounts: AccountStore;
  oauth: Pick<OAuthProvider, 'authenticateBearer' | 'protectedResourceMetadata'>;
  logger: Logger;
  /** Whether the relay has held tunnel `id` since it started: only such a tunnel's offline refusals are recorded. */
  seen?: (id: string) => boolean;
}

const STRIP = Object.fromEntries([...CREDENTIAL_HEADERS, RELAY_REQUEST_HEADER].map((h) => [h, null]));
const PRM_MCP = `${PRM_PREFIX}/mcp`;

/**
 * Builds the hook.
 *
 * @param deps - the zone, the registry, the accounts and the authorization server
 * @returns the `onRequest` hook
 */
export function createRelayHook(deps: RelayHookDeps) {
  const { zone, accounts, oauth, logger } = deps;
  const find = createTargetFinder(deps);
  const authenticate = createTunnelAuth({
    accounts,
    oauth,
    ...(deps.capture && { keyName: deps.capture.keyName }),
  });

  const addressOf = addressCache(zone);
  const refused = deps.capture && createRefusalRecorder(deps.capture.exchanges);

  const hook = async (req: FastifyRequest, reply: FastifyReply) => {
    const parsed = addressOf(req.headers.host, req.url);
    if (parsed === undefined) return undefined;
    const { address, resource } = parsed;
    const startedAt = Date.now();
    const target = await find(address);
    if (target === undefined) {
      if (!address.candidates.some((c) => accounts.hasAccount(c.account)))
        return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found: no such tunnel' });
      reply.hijack();
      writeTunnelOffline(reply.raw);
      const id = address.candidates.map(tunnelId).find((c) => deps.seen?.(c));
      if (id !== undefined) refused?.(id, { req: req.raw, ip: req.ip, status: 503, startedAt });
      return undefined;
    }
    // the CLI's event scope (E1) is the relay's own: never reachable from the public side
    if (address.path === SCOPE_PATH || address.path.startsWith(`${SCOPE_PATH}/`))
      return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found' });
    if (address.path.startsWith(PRM_MCP) && /^(?:\?|$)/.test(address.path.slice(PRM_MCP.length))) {
      const { policy } = target;
      const doc =
        typeof policy !== 'string' && policy.auth === 'oauth'
          ? oauth.protectedResourceMetadata(resource)
          : undefined;
      if (doc === undefined) return reply.code(404).send({ error: 'not_found' });
      return reply.header('cache-control', 'no-store').send(doc);
    }
    const caller = await authenticate(req, reply, { t: target, resource });
    if (caller === false) {
      // recorded by the node holding the tunnel (its ring is the one Live reads)
      if (target.tunnel)
        refused?.(tunnelId(target.tunnel), { req: req.raw, ip: req.ip, status: reply.statusCode, startedAt });
      return reply;
    }
    reply.hijack();
    req.raw.url = address.path;
    const forwarded = {
      ...STRIP,
      'x-forwarded-for': req.ip,
      'x-forwarded-host': address.host,
      'x-forwarded-proto': zone.protocol.slice(0, -1),
    };
    // capture and the owner's gate are the holding node's (a peer's exchanges are recorded by their holder)
    const sent = target.send({ req: req.raw, res: reply.raw, headers: forwarded }, caller);
    sent.catch((err: unknown) => {
      if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE') && !reply.raw.headersSent)
        return writeTunnelOffline(reply.raw);
      logger.warn({ err: (err as Error).message }, 'tunnel forward failed');
      reply.raw.destroy();
    });
    return undefined;
  };
  /**
   * Records a request to a tunnel held here that an earlier stage refused (the per-IP rate limit's 429 or 503),
   * as the hook records its own refusals (issue 19 Live): the owner sees why an agent is failing.
   */
  const refusedBefore = (req: FastifyRequest, status: number): void => {
    const parsed = refused && addressOf(req.headers.host, req.url);
    if (!parsed) return;
    for (const c of parsed.address.candidates) {
      const t = deps.registry.lookup(c.subdomain, c.account);
      if (t !== undefined)
        return refused!(tunnelId(t), { req: req.raw, ip: req.ip, status, startedAt: Date.now() });
    }
  };
  return Object.assign(hook, { refusedBefore });
}
