/**
 * Who is calling `/api` (DESIGN.md E2): the operator with the admin token, or an account with one of its API keys
 * (the dashboard session is the third form). One resolver for every `/api` route; the area check
 * ({@link callerMayUse}) says which caller kind may use which routes.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccountStore } from '@mcppipe/oauth';
import type { FastifyRequest } from 'fastify';

/** The caller of an `/api` request. */
export type ApiCaller =
  | { kind: 'admin' } // Bearer $MCPPIPE_API_TOKEN (constant-time)
  | { kind: 'account'; account: string; via: 'key'; keyId: string } // Bearer <account API key>
  | { kind: 'account'; account: string; via: 'session'; csrf: string }; // cookie mcppipe_session

/** What {@link createCallerResolver} needs. */
export interface CallerDeps {
  /** `MCPPIPE_API_TOKEN`; without it no caller is the admin. */
  apiToken?: string | undefined;
  /** The relay's accounts (with `--tunnel-zone`); without them no caller is an account. */
  accounts?: Pick<AccountStore, 'authenticateKey'> | undefined;
}

/** The challenge of a 401 from `/api`. */
export const API_CHALLENGE = 'Bearer realm="mcppipe-api"';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Builds the resolver: `Authorization: Bearer <token>` is the admin when it equals `MCPPIPE_API_TOKEN` (compared
 * in constant time over SHA-256 digests), else an account when it is one of that account's API keys
 * (`AccountStore.authenticateKey`, constant time per key).
 *
 * @param deps - the admin token and the accounts
 * @returns `resolveCaller(req)`: the caller, or undefined (answer 401 with {@link API_CHALLENGE})
 */
export function createCallerResolver(deps: CallerDeps): (req: FastifyRequest) => ApiCaller | undefined {
  const admin = deps.apiToken ? digest(deps.apiToken) : undefined;
  return (req) => {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    if (admin && timingSafeEqual(digest(token), admin)) return { kind: 'admin' };
    const owner = deps.accounts?.authenticateKey(token);
    return owner && { kind: 'account', account: owner.account, via: 'key', keyId: owner.keyId };
  };
}

const ADMIN_AREAS = ['/api/servers', '/api/webhooks'];
const ACCOUNT_AREAS = ['/api/tunnels', '/api/keys', '/api/session'];
const under = (path: string, areas: string[]) => areas.some((a) => path === a || path.startsWith(`${a}/`));

/**
 * The area rule: the admin token opens `/api/servers*` and `/api/webhooks*` (the gateway's own servers); an
 * account opens only `/api/tunnels*`, `/api/keys*` and `/api/session`.
 *
 * @param caller - the resolved caller
 * @param url - the request URL (query ignored)
 * @returns whether the caller may use the route
 */
export function callerMayUse(caller: ApiCaller, url: string): boolean {
  const path = url.split('?')[0]!;
  return under(path, caller.kind === 'admin' ? ADMIN_AREAS : ACCOUNT_AREAS);
}
