/**
 * `POST|GET|DELETE /api/session` (the contract's Session): the dashboard's login with an account password. The
 * cookie `mcppipe_session` is HttpOnly, SameSite=Lax, Path=/, and Secure when the request is https (Fastify's
 * `req.protocol`, which reads `X-Forwarded-Proto` only from `TRUSTED_PROXIES`). Failed logins are limited per
 * account and client address (`loginFailures.ts`: a fixed one-minute window from the first failure): past the
 * limit, 429 with `Retry-After` until the window ends; a success clears the count. `GET /api/session?optional=1`
 * asks whether there is a session without an error status: 204 when there is none (the dashboard's first load, so
 * the browser logs no 401); it opens nothing.
 *
 * @module
 */
import type { AccountStore } from '@mcppipe/oauth';
import { retryAfterHeader } from '@mcppipe/policy';
import { stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiCaller } from './caller.js';
import { SESSION_COOKIE, csrfOk, sessionCookie } from './caller.js';
import { FailureWindows } from './loginFailures.js';
import type { SessionTable } from './sessionStore.js';
import { SESSION_TTL_MS } from './sessionStore.js';

/** What the session routes need. */
export interface SessionDeps {
  accounts: Pick<AccountStore, 'verifyPassword'>;
  sessions: SessionTable;
  resolveCaller: (req: FastifyRequest) => ApiCaller | undefined;
}

const unauthorized = (reply: FastifyReply, message: string) =>
  reply
    .code(401)
    .header('www-authenticate', 'Bearer realm="mcppipe-api"')
    .send({ error: 'unauthorized', message });

/**
 * Resolves an account caller for an account route, or answers: 401 without one, 403 `{ error: 'csrf' }` for a
 * session's state-changing request without the right `x-csrf-token`, 403 for the admin (it owns no tunnels).
 *
 * @param req - the request
 * @param reply - its reply
 * @param resolve - the caller resolver
 * @returns the account caller, or undefined when the answer was sent
 */
export function accountCaller(
  req: FastifyRequest,
  reply: FastifyReply,
  resolve: (req: FastifyRequest) => ApiCaller | undefined,
): Extract<ApiCaller, { kind: 'account' }> | undefined {
  const caller = resolve(req);
  if (caller === undefined) {
    void unauthorized(reply, 'log in (POST /api/session) or send Authorization: Bearer <API key>');
    return undefined;
  }
  if (!csrfOk(req, caller)) {
    void reply.code(403).send({ error: 'csrf', message: 'send the x-csrf-token header of your session' });
    return undefined;
  }
  if (caller.kind !== 'account') {
    void reply
      .code(403)
      .send({ error: 'forbidden', message: 'account routes need an account API key or session' });
    return undefined;
  }
  return caller;
}

/**
 * Whether a request is `GET /api/session?optional=1` without an `Authorization` header: the question "is there a
 * dashboard session?" asked without an error status (a bearer that matches nothing still gets 401).
 *
 * @param req - the request
 * @returns true for that question
 */
export function optionalSessionProbe(req: FastifyRequest): boolean {
  if (req.method !== 'GET' || req.headers.authorization !== undefined) return false;
  const [path, query = ''] = req.url.split('?', 2);
  return path === '/api/session' && new URLSearchParams(query).get('optional') === '1';
}

/**
 * Registers the session routes.
 *
 * @param app - the API plugin instance
 * @param deps - accounts, sessions and the caller resolver
 */
export function sessionRoutes(app: FastifyInstance, deps: SessionDeps): void {
  const { accounts, sessions } = deps;
  const failures = new FailureWindows();

  app.post('/api/session', async (req, reply) => {
    const body = (req.body ?? {}) as { account?: unknown; password?: unknown };
    const { account, password } = body;
    if (typeof account !== 'string' || typeof password !== 'string' || account === '')
      return reply.code(400).send({
        error: 'invalid_request',
        message: 'send a JSON body {"account": "...", "password": "..."}',
      });
    const key = `${account}\u0000${req.ip}`;
    const wait = failures.waitMs(key, Date.now());
    const tooMany = (ms: number) =>
      reply
        .code(429)
        .header('retry-after', retryAfterHeader(ms))
        .send({
          error: 'rate_limited',
          message: `too many failed logins; retry in ${Math.ceil(ms / 1000)} s`,
        });
    if (wait > 0) return tooMany(wait);
    if (!(await accounts.verifyPassword(account, password))) {
      failures.fail(key, Date.now());
      return unauthorized(reply, 'wrong account or password');
    }
    failures.clear(key);
    const { id, session } = await sessions.create(account);
    const cookie = stringifySetCookie({
      name: SESSION_COOKIE,
      value: id,
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: req.protocol === 'https',
      maxAge: SESSION_TTL_MS / 1000,
    });
    return reply.header('set-cookie', cookie).send({ account, csrf: session.csrf });
  });

  app.get('/api/session', async (req, reply) => {
    const caller = deps.resolveCaller(req);
    if (caller?.kind !== 'account' || caller.via !== 'session') {
      if (optionalSessionProbe(req)) return reply.code(204).send();
      return unauthorized(
        reply,
        'no dashboard session: GET /api/session reads the session cookie (an API key has none); log in with POST /api/session',
      );
    }
    return { account: caller.account, csrf: caller.csrf };
  });

  app.delete('/api/session', async (req, reply) => {
    const caller = accountCaller(req, reply, deps.resolveCaller);
    if (caller === undefined) return reply;
    const id = sessionCookie(req);
    if (caller.via === 'session' && id !== undefined) await sessions.delete(id);
    const cleared = stringifySetCookie({
      name: SESSION_COOKIE,
      value: '',
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: req.protocol === 'https',
      maxAge: 0,
    });
    return reply.code(204).header('set-cookie', cleared).send();
  });
}
