/**
 * CORS for browser-based MCP clients (the Inspector's web UI, web apps): a root `onRequest` hook after the
 * `Host` guard and before authentication (a preflight carries no `Authorization`). It covers the MCP
 * endpoints (`/mcp`, `/hub`, `/servers/<name>/mcp`, `/health`), `/token`, `/register`, `/revoke` and the
 * `/.well-known/*` metadata, never `/authorize` and its forms (a browser page, not an API; RFC 9700 §2.6).
 * Origins follow {@link createOriginPolicy} (the CLI's `--allowed-origins` semantics); a disallowed origin
 * gets no CORS headers, its preflight falls through to the 404, and its real MCP requests still meet the
 * `Origin` guard.
 *
 * @module
 */
import { OAUTH_PATHS } from '@mcppipe/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createOriginPolicy, type GuardOptions } from './origin.js';

/** Request headers a browser may send (the MCP transport's and the bearer). */
export const CORS_ALLOWED_HEADERS =
  'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';
/** Response headers a browser may read: the session id and the bearer challenge. */
export const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';
const METHODS = 'GET, POST, DELETE, OPTIONS';
const MAX_AGE_SEC = '600';

const API_PATHS = new Set<string>([
  '/mcp',
  '/hub',
  '/health',
  OAUTH_PATHS.token,
  OAUTH_PATHS.register,
  OAUTH_PATHS.revoke,
]);
const SERVER_PATH = /^\/servers\/[^/]+\/mcp$/;

/**
 * Whether a request path is CORS-enabled.
 *
 * @param url - the request URL (path and query)
 */
export function isCorsPath(url: string): boolean {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return API_PATHS.has(path) || path.startsWith('/.well-known/') || SERVER_PATH.test(path);
}

/**
 * Builds the CORS hook.
 *
 * @param options - the public URL, the bind kind and the extra origins (`ALLOWED_ORIGINS`)
 * @returns a root `onRequest` hook: answers an allowed preflight with 204, adds `Access-Control-*` headers
 *   to an allowed origin's responses (on the raw response, so hijacked MCP responses carry them too)
 */
export function createCorsHook(options: GuardOptions) {
  const allowed = createOriginPolicy(options);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const origin = req.headers.origin;
    if (origin === undefined || !isCorsPath(req.url)) return;
    const res = reply.raw;
    res.setHeader('vary', 'Origin');
    if (!allowed(origin)) return;
    res.setHeader('access-control-allow-origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      return reply
        .code(204)
        .headers({
          'access-control-allow-methods': METHODS,
          'access-control-allow-headers': CORS_ALLOWED_HEADERS,
          'access-control-max-age': MAX_AGE_SEC,
        })
        .send();
    }
    res.setHeader('access-control-expose-headers', CORS_EXPOSED_HEADERS);
  };
}
