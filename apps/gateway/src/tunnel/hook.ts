/**
 * The relay's `onRequest` hook (DESIGN.md T4, T5, T6): a request addressed to a tunnel (by `Host` or the
 * `/t/<label>/…` path) is answered here, before the gateway's own Host guard, auth and body parsing: offline
 * → 503 `tunnel_offline`; the tunnel's IP allowlist; its auth mode; then the agent's credentials are stripped,
 * `X-Forwarded-*` set and the request hijacked and streamed through the tunnel (the body is never parsed); a POST's
 * bytes feed the exchange capture's tee as the forwarder moves them.
 *
 * @module
 */
import type { ExchangeCapture } from '@mcppipe/capture';
import { isMcpPipeError } from '@mcppipe/errors';
import { RELAY_REQUEST_HEADER, SCOPE_PATH } from '@mcppipe/events';
import type { AccountStore, OAuthProvider } from '@mcppipe/oauth';
import type { ForwardExchange, Tunnel, TunnelCluster, TunnelRegistry } from '@mcppipe/tunnel';
import { writeTunnelOffline } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CREDENTIAL_HEADERS } from '../pipeline/auth.js';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { SettingsEnforcer } from '../api/settingsRelay.js';
import { forwardGated } from '../api/settingsRelay.js';
import type { Logger } from '../types.js';
import type { TunnelAddress, ZoneConfig } from './address.js';
import { PRM_PREFIX, addressCache } from './address.js';
import type { TunnelPolicy } from './policy.js';
import { parsePolicy } from './policy.js';
import { createTunnelAuth } from './tunnelAuth.js';
import type { TunnelTarget as Target } from './tunnelAuth.js';

/** What the hook needs. */
export interface RelayHookDeps {
  zone: ZoneConfig;
  registry: TunnelRegistry;
  accounts: AccountStore;
  oauth: Pick<OAuthProvider, 'authenticateBearer' | 'protectedResourceMetadata'>;
  logger: Logger;
  /** The exchange capture (issue 19): POSTs are teed after auth (fed by the forwarder), recorded after the response. */
  capture?: {
    exchanges: ExchangeCapture;
    keyName: (keyId: string) => string;
    values?: (id: string) => boolean;
  };
  /** The owner's stored settings (issue 19): they win over the connect metadata. */
  settings?: SettingsEnforcer;
  /** Many nodes (S2): a tunnel held by another node is checked here and forwarded to its owner. */
  cluster?: TunnelCluster | undefined;
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
  const { zone, registry, accounts, oauth, logger, settings, cluster } = deps;
  const policies = new WeakMap<Tunnel, TunnelPolicy | string>();
  const policyOf = (t: Tunnel): TunnelPolicy | string => {
    const stored = settings?.policy(t);
    if (stored !== undefined) return stored;
    let p = policies.get(t);
    if (p === undefined) policies.set(t, (p = parsePolicy(t.metadata)));
    return p;
  };
  /**
   * Delivers an exchange into a tunnel held here, whichever node it entered (S2: `cluster.onForwarded`): a POST
   * feeds the exchange capture's tee, and the owner's stored policies and limits gate it.
   */
  const deliver = (t: Tunnel | undefined, x: ForwardExchange, caller: string | null): Promise<void> => {
    if (t === undefined) return registry.forward(t, x); // rejects: tunnel_offline
    if (deps.capture && x.req.method === 'POST') {
      const id = `${t.subdomain}--${t.account}`;
      const context = {
        caller,
        zeroKnowledge: t.zeroKnowledge,
        captureValues: deps.capture.values?.(id) ?? false,
      };
      x.tee = deps.capture.exchanges.tee(id, { req: x.req, res: x.res }, context);
    }
    const gate = t.zeroKnowledge ? undefined : settings?.gate(t);
    return gate ? forwardGated(x, { registry, tunnel: t, gate }) : registry.forward(t, x);
  };
  cluster?.onForwarded(deliver);
  const local = (t: Tunnel): Target => ({
    policy: policyOf(t),
    account: t.account,
    tunnel: t,
    send: (x, caller) => deliver(t, x, caller),
  });
  const find = async (a: TunnelAddress): Promise<Target | undefined> => {
    for (const c of a.candidates) {
      const t = registry.lookup(c.subdomain, c.account);
      if (t !== undefined) return local(t);
    }
    for (const c of cluster ? a.candidates : []) {
      const owner = await cluster!.remoteOwner(c.subdomain, c.account);
      if (owner !== undefined)
        return {
          // the owner's stored auth and allowlist (shared by every node) win over the connect metadata here too
          policy: settings?.policy(owner) ?? parsePolicy(owner.metadata),
          account: owner.account,
          send: (x, caller) => cluster!.forward(owner, x, caller),
        };
    }
    return undefined;
  };
  const authenticate = createTunnelAuth({
    accounts,
    oauth,
    ...(deps.capture && { keyName: deps.capture.keyName }),
  });

  const addressOf = addressCache(zone);

  return async (req: FastifyRequest, reply: FastifyReply) => {
    const parsed = addressOf(req.headers.host, req.url);
    if (parsed === undefined) return undefined;
    const { address, resource } = parsed;
    const target = await find(address);
    if (target === undefined) {
      if (!address.candidates.some((c) => accounts.hasAccount(c.account)))
        return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found: no such tunnel' });
      reply.hijack();
      writeTunnelOffline(reply.raw);
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
    if (caller === false) return reply;
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
}
