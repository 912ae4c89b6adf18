/**
 * The `/api` plugin (E2–E4): resolves the caller once per request (`api/caller.ts`: the admin token, an account's
 * API key, the dashboard session), answers 401 without one and 403 outside the caller's area, then registers the
 * route files: the gateway's own servers and webhooks (`api/servers.ts`, with `MCPPIPE_API_TOKEN`) and the relay's
 * tunnels (`api/tunnels.ts`, with `--tunnel-zone`). Routes only translate; the logic is `@mcppipe/events`'.
 *
 * @module
 */
import type { TunnelScopes } from '@mcppipe/events';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_CHALLENGE, callerMayUse, type ApiCaller } from '../api/caller.js';
import { serverRoutes } from '../api/servers.js';
import { tunnelRoutes } from '../api/tunnels.js';
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
}

/**
 * Registers the API (call inside an encapsulated plugin).
 *
 * @param app - the plugin instance
 * @param deps - the caller resolver and what to serve
 */
export function apiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.decorateRequest('apiCaller', undefined);
  app.addHook('onRequest', async (req, reply) => {
    const caller = deps.resolveCaller(req);
    // the login (`POST /api/session`) has no caller yet: its routes answer 401 themselves where one is needed
    if (caller === undefined && req.url.split('?')[0] === '/api/session') return;
    if (caller === undefined) {
      reply.header('www-authenticate', API_CHALLENGE);
      return reply.code(401).send({
        error: 'unauthorized',
        message: 'send Authorization: Bearer with $MCPPIPE_API_TOKEN or an API key of your account',
      });
    }
    if (!callerMayUse(caller, req.url))
      return reply.code(403).send({
        error: 'forbidden',
        message:
          caller.kind === 'admin'
            ? 'the admin token opens /api/servers and /api/webhooks; use an account API key for /api/tunnels'
            : 'an account API key opens /api/tunnels, /api/keys and /api/session only',
      });
    req.apiCaller = caller;
  });
  if (deps.events) serverRoutes(app, deps.events);
  if (deps.tunnels) tunnelRoutes(app, deps.tunnels);
}
