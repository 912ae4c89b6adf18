/**
 * Who calls the `/api` routes (the shared API contract of issue 19): the operator with `MCPPIPE_API_TOKEN`
 * (constant-time compare), or an account by one of its API keys. The session engineer adds the `session` branch
 * (cookie `mcppipe_session`) and its CSRF check.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AccountStore } from '@mcppipe/oauth';
import type { FastifyRequest } from 'fastify';

/** An authenticated API caller. */
export type ApiCaller =
  | { kind: 'admin' } // Bearer $MCPPIPE_API_TOKEN (constant-time)
  | { kind: 'account'; account: string; via: 'key'; keyId: string } // Bearer <account API key>
  | { kind: 'account'; account: string; via: 'session'; csrf: string }; // cookie mcppipe_session

/** What {@link createCallerResolver} needs. */
export interface CallerDeps {
  /** The admin API token (`MCPPIPE_API_TOKEN`); unset: no admin caller. */
  apiToken?: string;
  /** The relay's accounts (API keys); unset: no account callers. */
  accounts?: Pick<AccountStore, 'authenticateKey'>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Builds the caller resolution of the `/api` routes.
 *
 * @param deps - the admin token and the accounts
 * @returns `resolveCaller(req)`: the caller, or undefined (the route answers 401)
 */
export function createCallerResolver(deps: CallerDeps): (req: FastifyRequest) => ApiCaller | undefined {
  const admin = deps.apiToken === undefined ? undefined : digest(deps.apiToken);
  return function resolveCaller(req: FastifyRequest): ApiCaller | undefined {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    if (admin !== undefined && timingSafeEqual(digest(token), admin)) return { kind: 'admin' };
    const owner = deps.accounts?.authenticateKey(token);
    return owner && { kind: 'account', account: owner.account, via: 'key', keyId: owner.keyId };
  };
}
