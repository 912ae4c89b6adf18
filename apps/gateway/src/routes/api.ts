/**
 * The `/api` plugin (E2–E4): resolves the caller once per request (`api/caller.ts`: the admin token, an account's
 * API key, the dashboard session), answers 401 without one (but for the login), 403 for a session's
 * state-changing request without its CSRF token and 403 outside the caller's area, then registers the
 * route files: the gateway's own servers and webhooks (`api/servers.ts`, with `MCPPIPE_API_TOKEN`) and the relay's
 * tunnels (`api/tunnels.ts`, with `--tunnel-zone`). Routes only translate; the logic is `@mcppipe/events`'.
 *
 * @module
 */
import type { TunnelScopes } from '@mcppipe/events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_CHALLENGE, callerMayUse, csrfOk, sessionCookie, type ApiCaller } from '../api/caller.js';
import type { SessionTable } from '../api/sessionStore.js';
import { apiErrorHandler } from '../api/reply.js';
import { optionalSessionProbe } from '../api/session.js';

/** The login route: the one `/api` route without a caller. */
const LOGIN = '/api/session';
import { serverRoutes } from '../api/servers.js';
import { tunnelRoutes, type TunnelRoutesDeps } from '../api/tunnels.js';
import type { GatewayEvents } from '../events/scope.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `/api` caller, set by the `/api` plugin's hook. */
    apiCaller?: ApiCaller | undefined;
  }
}

/** What the `/api` plugin serves. */
export interface ApiDeps {
  resolveCaller: (req: FastifyRequest) => ApiCaller | undefined;
  /** The gateway's own events: `/api/servers*`, `/api/webhooks*` (admin). */
  events?: GatewayEvents | undefined;
  /** The relay's tunnel scopes: `/api/tunnels*` (account). */
  tunnels?: TunnelScopes | undefined;
  /** Many nodes (S2): the cluster and public URL rule the tunnel routes answer other nodes' tunnels with. */
  relay?: Omit<TunnelRoutesDeps, 'scopes'> | undefined;
  /** More route files (the account side: session, keys, settings, exchanges, stats), after the caller hook. */
  routes?: ReadonlyArray<(app: FastifyInstance) => void> | undefined;
  /** The dashboard sessions: with `--redis` a session cookie's session is loaded before the caller is resolved. */
  sessions?: Pick<SessionTable, 'load'> | undefined;
}

/**
 * Registers the API (call inside an encapsulated plugin).
 *
 * @param app - the plugin instance
 * @param deps - the caller resolver and what to serve
 */
export function apiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.decorateRequest('apiCaller', undefined);
  app.setErrorHandler(apiErrorHandler);
  // bodies are JSON: any other type is 415 unsupported_media_type (Fastify would hand text/plain on as a string)
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (req, reply) => {
    const cookie = req.headers.authorization === undefined ? sessionCookie(req) : undefined;
    if (cookie !== undefined) await deps.sessions?.load?.(cookie); // S1: opened or ended on another node
    const caller = deps.resolveCaller(req);
    if (caller === undefined && req.method === 'POST' && req.url.split('?')[0] === LOGIN) return; // the login
    if (caller === undefined && optionalSessionProbe(req)) return; // "is there a session?": 204, opens nothing
    if (caller === undefined) {
      reply.header('www-authenticate', API_CHALLENGE);
      return reply.code(401).send({
        error: 'unauthorized',
        message:
          cookie !== undefined
            ? 'your dashboard session ended (logged out or expired): log in again (POST /api/session)'
            : 'log in (POST /api/session), or send Authorization: Bearer with an API key of your account (the admin token $MCPPIPE_API_TOKEN opens /api/servers and /api/webhooks)',
      });
    }
    if (!callerMayUse(caller, req.url))
      return reply.code(403).send({
        error: 'forbidden',
        message:
          caller.kind === 'admin'
            ? 'the admin token opens /api/servers and /api/webhooks only; /api/tunnels, /api/keys and /api/session take an account API key or dashboard session'
            : 'an account API key or dashboard session opens /api/tunnels, /api/keys and /api/session only; /api/servers and /api/webhooks take the admin token ($MCPPIPE_API_TOKEN)',
      });
    if (!csrfOk(req, caller))
      return reply.code(403).send({ error: 'csrf', message: 'send the x-csrf-token header of your session' });
    req.apiCaller = caller;
  });
  if (deps.events) serverRoutes(app, deps.events);
  if (deps.tunnels) tunnelRoutes(app, { ...deps.relay, scopes: deps.tunnels });
  for (const routes of deps.routes ?? []) routes(app);
}
