/**
 * Who is calling the `/api` routes (DESIGN.md E2, D1): the admin (`Bearer $MCPPIPE_API_TOKEN`, constant time), an
 * account by one of its API keys (`AccountStore.authenticateKey`), or an account by its dashboard session (cookie
 * `mcppipe_session`). One resolver for every `/api` route; the area check ({@link callerMayUse}) says which caller
 * kind may use which routes, and every state-changing request made with a session cookie must carry
 * `x-csrf-token` equal to the session's CSRF token ({@link csrfOk}).
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { AccountStore } from '@mcppipe/oauth';
import { sha256 } from '@mcppipe/oauth';
import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { SessionStore } from './sessionStore.js';

/** The resolved caller of an API request. */
export type ApiCaller =
  | { kind: 'admin' } // Bearer $MCPPIPE_API_TOKEN (constant-time)
  | { kind: 'account'; account: string; via: 'key'; keyId: string } // Bearer <account API key>
  | { kind: 'account'; account: string; via: 'session'; csrf: string }; // cookie mcppipe_session

/** The session cookie's name. */
export const SESSION_COOKIE = 'mcppipe_session';
/** The header that carries the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

/** What {@link createCallerResolver} needs. */
export interface CallerDeps {
  /** The admin API token; unset: no admin caller. */
  apiToken?: string | undefined;
  /** The relay's accounts (API keys); unset: no key callers. */
  accounts?: Pick<AccountStore, 'authenticateKey' | 'hasAccount'> | undefined;
  /** The dashboard sessions; unset: no session callers. */
  sessions?: Pick<SessionStore, 'touch'> | undefined;
}

/** The challenge of a 401 from `/api`. */
export const API_CHALLENGE = 'Bearer realm="mcppipe-api"';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Compares two secrets in constant time (of their digests).
 *
 * @returns whether they are equal
 */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * The session id in a request's cookie, if any.
 *
 * @param req - the request
 * @returns the cookie's value
 */
export function sessionCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[SESSION_COOKIE];
}

/**
 * Builds the resolver. A bearer token wins over a cookie; a bearer that matches nothing is no caller (401), even
 * with a valid cookie.
 *
 * @param deps - the admin token, the accounts and the sessions
 * @returns `resolveCaller(req)`: the caller, or undefined for none (answer 401)
 */
export function createCallerResolver(deps: CallerDeps): (req: FastifyRequest) => ApiCaller | undefined {
  const admin = deps.apiToken === undefined ? undefined : sha256(deps.apiToken);
  return (req) => {
    const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      if (admin !== undefined && timingSafeEqual(sha256(bearer), admin)) return { kind: 'admin' };
      const owner = deps.accounts?.authenticateKey(bearer);
      return owner && { kind: 'account', account: owner.account, via: 'key', keyId: owner.keyId };
    }
    const id = sessionCookie(req);
    const session = id === undefined ? undefined : deps.sessions?.touch(id);
    // a removed account's sessions end with it
    if (session === undefined || deps.accounts?.hasAccount(session.account) === false) return undefined;
    return { kind: 'account', account: session.account, via: 'session', csrf: session.csrf };
  };
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The CSRF rule: a state-changing request of a session caller must carry `x-csrf-token` equal to the session's
 * token; API-key and admin callers need none (browsers do not attach their bearer tokens by themselves).
 *
 * @param req - the request
 * @param caller - its resolved caller
 * @returns whether the request may proceed (else answer 403 `{ error: 'csrf' }`)
 */
export function csrfOk(req: FastifyRequest, caller: ApiCaller): boolean {
  if (caller.kind !== 'account' || caller.via !== 'session' || !STATE_CHANGING.has(req.method)) return true;
  const sent = req.headers[CSRF_HEADER];
  return typeof sent === 'string' && sameSecret(sent, caller.csrf);
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
