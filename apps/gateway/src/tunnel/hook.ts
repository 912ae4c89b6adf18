/**
 * The relay's `onRequest` hook (DESIGN.md T4, T5, T6): a request addressed to a tunnel (by `Host` or the
 * `/t/<label>/…` path) is answered here, before the gateway's own Host guard, auth and body parsing: offline
 * → 503 `tunnel_offline`; the tunnel's IP allowlist; its auth mode; then the agent's credentials are stripped,
 * `X-Forwarded-*` set and the request hijacked and streamed through the tunnel (the body is never parsed).
 *
 * @module
 */
import { isMcpPipeError } from '@mcppipe/errors';
import type { AccountStore, OAuthProvider } from '@mcppipe/oauth';
import type { ForwardExchange, Tunnel, TunnelCluster, TunnelRegistry } from '@mcppipe/tunnel';
import { writeTunnelOffline } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CREDENTIAL_HEADERS } from '../pipeline/auth.js';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { Logger } from '../types.js';
import type { TunnelAddress, ZoneConfig } from './address.js';
import { PRM_PREFIX, tunnelAddress } from './address.js';
import type { TunnelPolicy } from './policy.js';
import { allowed, parsePolicy } from './policy.js';

/** What the hook needs. */
export interface RelayHookDeps {
  zone: ZoneConfig;
  registry: TunnelRegistry;
  accounts: AccountStore;
  oauth: Pick<OAuthProvider, 'authenticateBearer' | 'protectedResourceMetadata'>;
  logger: Logger;
  /** Many nodes (S2): tunnels held by other nodes are checked here and forwarded to their owner. */
  cluster?: TunnelCluster | undefined;
}

/** A tunnel held here or by another node: its policy source, owner and how to reach it. */
interface Target {
  metadata: Readonly<Record<string, string>>;
  account: string;
  policy?: TunnelPolicy | string;
  forward(exchange: ForwardExchange): Promise<void>;
}

const STRIP = Object.fromEntries(CREDENTIAL_HEADERS.map((h) => [h, null]));
const BEARER = /^Bearer +(\S+) *$/i;
const KEY_CHALLENGE = 'Bearer realm="mcppipe tunnel", error="invalid_token"';

/** Answers 401; `false` = refused (a `FastifyReply` is thenable, so it is never awaited as a value). */
function unauthorized(reply: FastifyReply, challenge: string, message: string): false {
  reply.header('www-authenticate', challenge);
  refuse(reply, 401, { code: RPC.invalidRequest, message });
  return false;
}

/**
 * Builds the hook.
 *
 * @param deps - the zone, the registry, the accounts and the authorization server
 * @returns the `onRequest` hook
 */
export function createRelayHook(deps: RelayHookDeps) {
  const { zone, registry, accounts, oauth, logger, cluster } = deps;
  const local = new WeakMap<Tunnel, Target>();
  const policyOf = (t: Target): TunnelPolicy | string => (t.policy ??= parsePolicy(t.metadata));
  const find = async (a: TunnelAddress): Promise<Target | undefined> => {
    for (const c of a.candidates) {
      const t = registry.lookup(c.subdomain, c.account);
      if (t === undefined) continue;
      let target = local.get(t);
      if (target === undefined)
        local.set(
          t,
          (target = { metadata: t.metadata, account: t.account, forward: (x) => registry.forward(t, x) }),
        );
      return target;
    }
    for (const c of cluster ? a.candidates : []) {
      const owner = await cluster!.remoteOwner(c.subdomain, c.account);
      if (owner !== undefined)
        return {
          metadata: owner.metadata,
          account: owner.account,
          forward: (x) => cluster!.forward(owner, x),
        };
    }
    return undefined;
  };
  /** Allowlist and auth: true to forward; false when the refusal was sent. */
  const authenticate = async (
    req: FastifyRequest,
    reply: FastifyReply,
    { t, resource }: { t: Target; resource: string },
  ): Promise<boolean> => {
    const policy = policyOf(t);
    if (typeof policy === 'string' || !allowed(policy, req.ip)) {
      refuse(reply, 403, {
        code: RPC.invalidRequest,
        message: "Forbidden: this address is not in the tunnel's IP allowlist",
      });
      return false;
    }
    if (policy.auth === 'none') return true;
    const authorization = req.headers.authorization;
    if (policy.auth === 'api-key') {
      const key = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
      const owner = key === undefined ? undefined : accounts.authenticateKey(key);
      if (owner?.account === t.account) return true;
      return unauthorized(
        reply,
        KEY_CHALLENGE,
        'Unauthorized: send an API key of the tunnel owner as Bearer',
      );
    }
    const result = await oauth.authenticateBearer(authorization, resource);
    if (result.ok) return true;
    return unauthorized(
      reply,
      result.wwwAuthenticate,
      'Unauthorized: send a Bearer access token for this tunnel',
    );
  };

  return async (req: FastifyRequest, reply: FastifyReply) => {
    const address = tunnelAddress(zone, req.headers.host, req.url);
    if (address === undefined) return undefined;
    const tunnel = await find(address);
    if (tunnel === undefined) {
      if (!address.candidates.some((c) => accounts.hasAccount(c.account)))
        return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found: no such tunnel' });
      reply.hijack();
      writeTunnelOffline(reply.raw);
      return undefined;
    }
    const resource = `${address.base}/mcp`;
    if (address.path.split('?')[0] === `${PRM_PREFIX}/mcp`) {
      const policy = policyOf(tunnel);
      const doc =
        typeof policy !== 'string' && policy.auth === 'oauth'
          ? oauth.protectedResourceMetadata(resource)
          : undefined;
      if (doc === undefined) return reply.code(404).send({ error: 'not_found' });
      return reply.header('cache-control', 'no-store').send(doc);
    }
    if (!(await authenticate(req, reply, { t: tunnel, resource }))) return reply;
    reply.hijack();
    req.raw.url = address.path;
    const forwarded = {
      ...STRIP,
      'x-forwarded-for': req.ip,
      'x-forwarded-host': address.host,
      'x-forwarded-proto': zone.protocol.slice(0, -1),
    };
    tunnel.forward({ req: req.raw, res: reply.raw, headers: forwarded }).catch((err: unknown) => {
      if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE') && !reply.raw.headersSent)
        return writeTunnelOffline(reply.raw);
      logger.warn({ err: (err as Error).message }, 'tunnel forward failed');
      reply.raw.destroy();
    });
    return undefined;
  };
}
