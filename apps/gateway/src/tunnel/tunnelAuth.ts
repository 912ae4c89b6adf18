/**
 * The tunnel's allowlist and auth mode at the relay (DESIGN.md T5): `none`, `api-key` (a key of the owner account)
 * or `oauth` (a token of the gateway's authorization server with the tunnel's `/mcp` as audience). Used for tunnels
 * held here and by other nodes (S2).
 *
 * @module
 */
import type { AccountStore, BearerResult, OAuthProvider } from '@mcppipe/oauth';
import type { ForwardExchange, Tunnel } from '@mcppipe/tunnel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { TunnelPolicy } from './policy.js';
import { allowed } from './policy.js';

/** A tunnel held here (`tunnel`) or by another node: its policy, owner and how to send it an exchange. */
export interface TunnelTarget {
  policy: TunnelPolicy | string;
  account: string;
  tunnel?: Tunnel;
  /** Sends the exchange with the caller this node authenticated (recorded by the capture as the exchange's caller). */
  send(exchange: ForwardExchange, caller: string | null): Promise<void>;
}

const BEARER = /^Bearer +(\S+) *$/i;
/** RFC 6750 §3.1: a request without credentials gets no `error` code; a key that is not the owner's does. */
const KEY_CHALLENGE = 'Bearer realm="mcppipe tunnel"';
const BAD_KEY_CHALLENGE = 'Bearer realm="mcppipe tunnel", error="invalid_token"';

/** Answers 401; `false` = refused (a `FastifyReply` is thenable, so it is never awaited as a value). */
function unauthorized(reply: FastifyReply, challenge: string, message: string): false {
  reply.header('www-authenticate', challenge);
  refuse(reply, 401, { code: RPC.invalidRequest, message });
  return false;
}

/**
 * What a 401 of an `oauth` tunnel says: without a token, to send one; with one, why it was refused (the
 * authorization server's own `error_description`), and for a token of another resource that each address of a
 * tunnel (its host and its `/t/…` path form) is a resource of its own.
 */
function bearerRefusalText(result: Extract<BearerResult, { ok: false }>): string {
  if (result.refusal === 'missing') return 'Unauthorized: send a Bearer access token for this tunnel';
  let description = 'The access token was refused';
  try {
    const parsed = JSON.parse(result.body) as { error_description?: unknown };
    if (typeof parsed.error_description === 'string') description = parsed.error_description;
  } catch {
    // the body is ours; keep the generic text
  }
  return result.refusal === 'audience'
    ? `Unauthorized: ${description} (a token is issued for one address of a tunnel: its host form and its /t/ path form are different resources; get a token for the URL you call)`
    : `Unauthorized: ${description}`;
}

/** The OAuth client's registered `client_name` (issue 19: exchanges name their caller), if it has one. */
const clientName = (extra: Record<string, unknown> | undefined): string | undefined =>
  typeof extra?.['clientName'] === 'string' && extra['clientName'] !== '' ? extra['clientName'] : undefined;

/**
 * Builds the check.
 *
 * @param deps - the accounts (API keys), the authorization server, and the key names callers are recorded by
 * @returns `authenticate(req, reply, { t, resource })`: the caller's name (null for auth `none`; the API key's name;
 *   the OAuth client's `client_name`, else its id) to forward, or
 *   false when the refusal (403 outside the allowlist, 401 with the mode's challenge) was sent
 */
export function createTunnelAuth(deps: {
  accounts: Pick<AccountStore, 'authenticateKey'>;
  oauth: Pick<OAuthProvider, 'authenticateBearer'>;
  keyName?: (keyId: string) => string;
}) {
  const { accounts, oauth } = deps;
  return async (
    req: FastifyRequest,
    reply: FastifyReply,
    { t, resource }: { t: TunnelTarget; resource: string },
  ): Promise<string | null | false> => {
    const { policy } = t;
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
      if (owner?.account === t.account) return deps.keyName?.(owner.keyId) ?? owner.keyId;
      return unauthorized(
        reply,
        key === undefined ? KEY_CHALLENGE : BAD_KEY_CHALLENGE,
        'Unauthorized: send an API key of the tunnel owner as Bearer',
      );
    }
    const result = await oauth.authenticateBearer(authorization, resource);
    if (result.ok) return clientName(result.authInfo.extra) ?? result.authInfo.clientId;
    return unauthorized(reply, result.wwwAuthenticate, bearerRefusalText(result));
  };
}
