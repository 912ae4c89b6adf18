/**
 * The dashboard's static files (DESIGN.md D1, D3): `@mcppipe/dashboard`'s Vite build, copied into this package's
 * `dist/dashboard` at build time, served at `/dashboard/` on the gateway's origin (and so on the tunnel zone's
 * apex). Hashed assets are cached for a year (immutable); `index.html` is `no-cache` and answers every other path
 * under `/dashboard/` (the single-page app's fallback). Only files present at start are served (no traversal);
 * every answer under `/dashboard` — the redirect, a 404 and a refusal by an earlier hook included — carries
 * `Content-Security-Policy: default-src 'self'` (no CDN, no inline script), `X-Content-Type-Options: nosniff` and
 * `Referrer-Policy: no-referrer` ({@link dashboardHeaders}, a root hook).
 *
 * @module
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The path the dashboard is served at. */
export const DASHBOARD_PATH = '/dashboard';

/** `Content-Security-Policy` of every dashboard answer: our own origin only. */
export const DASHBOARD_CSP =
  "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';

/**
 * Where the built dashboard sits beside this module (`dist/dashboard`), or undefined when it was not built (the
 * gateway then serves no `/dashboard`).
 *
 * @returns an absolute directory path, or undefined
 */
export function bundledDashboardDir(): string | undefined {
  const dir = fileURLToPath(new URL('./dashboard/', import.meta.url));
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

/**
 * The `onRequest` hook that gives every answer under `/dashboard` its security headers, whatever answers it (the
 * files, the redirect, a 404, the Host guard): registered on the root before the hooks that may refuse.
 *
 * @param req - the request
 * @param reply - its reply
 * @param done - continues with the next hook
 */
export function dashboardHeaders(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  // callback style and a prefix test first: no promise and no string split per request on the other paths
  if (req.url.startsWith(DASHBOARD_PATH)) {
    const rest = req.url.charAt(DASHBOARD_PATH.length);
    if (rest === '' || rest === '/' || rest === '?')
      reply
        .header('content-security-policy', DASHBOARD_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer');
  }
  done();
}

function listFiles(root: string): Set<string> {
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
  return new Set(files);
}

/**
 * Registers `GET /dashboard` (→ `/dashboard/`) and `GET /dashboard/*` (call inside an encapsulated plugin; the
 * headers come from {@link dashboardHeaders} on the root).
 *
 * @param app - the plugin instance
 * @param dir - the built dashboard (must hold `index.html`); see {@link bundledDashboardDir}
 */
export async function dashboardRoutes(app: FastifyInstance, dir: string): Promise<void> {
  const files = listFiles(dir);
  await app.register(fastifyStatic, { root: dir, serve: false, cacheControl: false });
  const send = (reply: FastifyReply, file: string, cache: string) =>
    reply.header('cache-control', cache).sendFile(file);
  app.get(DASHBOARD_PATH, (_req, reply) => reply.redirect(`${DASHBOARD_PATH}/`));
  app.get<{ Params: { '*': string } }>(`${DASHBOARD_PATH}/*`, (req, reply) => {
    const path = req.params['*'];
    if (path !== 'index.html' && files.has(path)) {
      return send(reply, path, path.startsWith('assets/') ? IMMUTABLE : NO_CACHE);
    }
    // a missing hashed asset is a 404, not the page (a stale tab must not parse HTML as a script)
    if (path.startsWith('assets/'))
      return reply.code(404).send({ error: 'not_found', message: 'no such asset' });
    return send(reply, 'index.html', NO_CACHE);
  });
}
