/**
 * The relay's `onRequest` hook (DESIGN.md T4, T5, T6): a request addressed to a tunnel (by `Host` or the
 * `/t/<label>/…` path) is answered here, before the gateway's own Host guard, auth and body parsing: offline
 * → 503 `tunnel_offline`; the tunnel's IP allowlist; its auth mode; then the agent's credentials are stripped,
 * `X-Forwarded-*` set and the request hijacked and streamed through the tunnel (the body is never parsed).
 *
 * @module
 */
import type { ExchangeCapture } from '@mcppipe/capture';
import { isMcpPipeError } from '@mcppipe/errors';
import { RELAY_REQUEST_HEADER, SCOPE_PATH } from '@mcppipe/events';
import type { AccountStore, OAuthProvider } from '@mcppipe/oauth';
import type { Tunnel, TunnelRegistry } from '@mcppipe/tunnel';
import { writeTunnelOffline } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CREDENTIAL_HEADERS } from '../pipeline/auth.js';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { SettingsEnforcer } from '../api/settingsRelay.js';
import { forwardGated } from '../api/settingsRelay.js';
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
  /** The exchange capture (issue 19): POSTs are teed after auth, recorded after the response. */
  capture?: {
    exchanges: ExchangeCapture;
    keyName: (keyId: string) => string;
    values?: (id: string) => boolean;
  };
  /** The owner's stored settings (issue 19): they win over the connect metadata. */
  settings?: SettingsEnforcer;
}

const STRIP = Object.fromEntries([...CREDENTIAL_HEADERS, RELAY_REQUEST_HEADER].map((h) => [h, null]));
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
  const { zone, registry, accounts, oauth, logger, settings } = deps;
  const policies = new WeakMap<Tunnel, TunnelPolicy | string>();
  const policyOf = (t: Tunnel): TunnelPolicy | string => {
    const stored = settings?.policy(t);
    if (stored !== undefined) return stored;
    let p = policies.get(t);
    if (p === undefined) policies.set(t, (p = parsePolicy(t.metadata)));
    return p;
  };
  const find = (a: TunnelAddress): Tunnel | undefined => {
    for (const c of a.candidates) {
      const t = registry.lookup(c.subdomain, c.account);
      if (t !== undefined) return t;
    }
    return undefined;
  };
  /** Allowlist and auth: the caller's name (null: auth `none`) to forward; false when the refusal was sent. */
  const authenticate = async (
    req: FastifyRequest,
    reply: FastifyReply,
    { t, resource }: { t: Tunnel; resource: string },
  ): Promise<string | null | false> => {
    const policy = policyOf(t);
    if (typeof policy === 'string' || !allowed(policy, req.ip)) {
      refuse(reply, 403, {
        code: RPC.invalidRequest,
        message: "Forbidden: this address is not in the tunnel's IP allowlist",
      });
      return false;
    }
    if (policy.auth === 'none') return null;
    const authorization = req.headers.authorization;
    if (policy.auth === 'api-key') {
      const key = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
      const owner = key === undefined ? undefined : accounts.authenticateKey(key);
      if (owner?.account === t.account) return deps.capture?.keyName(owner.keyId) ?? owner.keyId;
      return unauthorized(
        reply,
        KEY_CHALLENGE,
        'Unauthorized: send an API key of the tunnel owner as Bearer',
      );
    }
    const result = await oauth.authenticateBearer(authorization, resource);
    if (result.ok) return result.authInfo.clientId;
    return unauthorized(
      reply,
      result.wwwAuthenticate,
      'Unauthorized: send a Bearer access token for this tunnel',
    );
  };

  return async (req: FastifyRequest, reply: FastifyReply) => {
    const address = tunnelAddress(zone, req.headers.host, req.url);
    if (address === undefined) return undefined;
    const tunnel = find(address);
    if (tunnel === undefined) {
      if (!address.candidates.some((c) => accounts.hasAccount(c.account)))
        return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found: no such tunnel' });
      reply.hijack();
      writeTunnelOffline(reply.raw);
      return undefined;
    }
    // the CLI's event scope (E1) is the relay's own: never reachable from the public side
    if (address.path === SCOPE_PATH || address.path.startsWith(`${SCOPE_PATH}/`))
      return refuse(reply, 404, { code: RPC.invalidRequest, message: 'Not found' });
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
    const caller = await authenticate(req, reply, { t: tunnel, resource });
    if (caller === false) return reply;
    reply.hijack();
    const id = `${tunnel.subdomain}--${tunnel.account}`;
    const { zeroKnowledge } = tunnel;
    if (deps.capture && req.method === 'POST')
      deps.capture.exchanges.tap(
        id,
        { req: req.raw, res: reply.raw },
        { caller, zeroKnowledge, captureValues: deps.capture.values?.(id) ?? false },
      );
    req.raw.url = address.path;
    const forwarded = {
      ...STRIP,
      'x-forwarded-for': req.ip,
      'x-forwarded-host': address.host,
      'x-forwarded-proto': zone.protocol.slice(0, -1),
    };
    const exchange = { req: req.raw, res: reply.raw, headers: forwarded };
    const gate = tunnel.zeroKnowledge ? undefined : settings?.gate(tunnel);
    const sent = gate
      ? forwardGated(req, exchange, { registry, tunnel, gate })
      : registry.forward(tunnel, exchange);
    sent.catch((err: unknown) => {
      if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE') && !reply.raw.headersSent)
        return writeTunnelOffline(reply.raw);
      logger.warn({ err: (err as Error).message }, 'tunnel forward failed');
      reply.raw.destroy();
    });
    return undefined;
  };
}
