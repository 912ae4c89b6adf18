/**
 * Unauthenticated routes: `/livez` (liveness, minimal body), `/readyz` (readiness: the shared store answers) and
 * the RFC 9728 protected-resource metadata
 * of each MCP endpoint at `/.well-known/oauth-protected-resource/<endpoint path>`, built from the public
 * URL only (never from `Host` or `X-Forwarded-*`; the one exception is a loopback bind without an explicit
 * public URL, where each loopback spelling is answered as itself, see `loopbackAliases`).
 *
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedDeps } from '../resolve.js';
import { resourcePathOf } from './protectedResources.js';

const PRM_PREFIX = '/.well-known/oauth-protected-resource';

/**
 * The RFC 9728 document of one resource.
 *
 * @param publicUrl - the issuer and resource base
 * @param path - the endpoint path, e.g. `/hub`
 */
export function protectedResourceDocument(publicUrl: string, path: string) {
  return {
    resource: `${publicUrl}${path}`,
    authorization_servers: [publicUrl],
    bearer_methods_supported: ['header'],
    resource_name: `mcppipe ${path}`,
  };
}

/**
 * Registers `/livez`, `/readyz` and the metadata routes. `/readyz` answers `200 {"status":"ready"}`, or `503
 * {"status":"unavailable","error":<code>,"message"}` with `Retry-After: 1` while `deps.ready` rejects (many nodes:
 * the shared Redis does not answer), so a load balancer sends traffic to the nodes that can serve it.
 *
 * @param app - the root instance
 * @param deps - the resolved dependencies
 */
export function metaRoutes(app: FastifyInstance, deps: ResolvedDeps): void {
  app.get('/livez', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      await deps.ready?.();
      return reply.send({ status: 'ready' });
    } catch (err) {
      const { code, message } = err as { code?: unknown; message?: unknown };
      return reply
        .code(503)
        .header('retry-after', '1')
        .send({
          status: 'unavailable',
          error: typeof code === 'string' ? code : 'unavailable',
          message: typeof message === 'string' ? message : 'not ready',
        });
    }
  });
  const document = async (path: string | undefined, req: FastifyRequest, reply: FastifyReply) => {
    const base = deps.baseUrlOf(req.headers.host);
    const resource = `${base}${path ?? ''}`;
    const doc =
      path === undefined
        ? undefined
        : deps.resourceMetadata
          ? deps.resourceMetadata(resource)
          : { ...protectedResourceDocument(deps.publicUrl, path), resource };
    if (doc === undefined) return reply.code(404).send({ error: 'not_found' });
    return reply.header('cache-control', 'public, max-age=300').send(doc);
  };
  app.get(`${PRM_PREFIX}/hub`, (req, reply) => document(deps.hub ? '/hub' : undefined, req, reply));
  app.get(`${PRM_PREFIX}/mcp`, (req, reply) => document(deps.aggregate ? '/mcp' : undefined, req, reply));
  app.get<{ Params: { name: string } }>(`${PRM_PREFIX}/servers/:name/mcp`, (req, reply) => {
    const path = resourcePathOf(req);
    return document(
      path !== undefined && deps.registry.get(req.params.name) !== undefined ? path : undefined,
      req,
      reply,
    );
  });
}
