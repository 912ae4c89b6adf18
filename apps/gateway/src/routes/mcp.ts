/**
 * The protected routes — `/hub`, `/mcp`, `/servers/<name>/mcp` and `/health` — in one encapsulated plugin
 * that owns stages 2–6 of the pipeline (DESIGN.md G5): origin check, bearer verification, audience check and
 * per-client gate as `onRequest` hooks, then the guarded body parser, then routing in the handlers. Which resource
 * a request is for (the audience) is `protectedResources.ts`.
 *
 * @module
 */
import { toJsonRpcError, upstreamUnavailableError } from '@mcppipe/aggregator';
import type { McpHttpHost } from '@mcppipe/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ToolCounter } from '../health.js';
import { createAuthHook } from '../pipeline/auth.js';
import { registerBodyParser } from '../pipeline/body.js';
import type { ClientGate } from '../pipeline/clientGate.js';
import { createMcpErrorHandler } from '../pipeline/errorHandler.js';
import { createGateHook } from '../pipeline/gateHook.js';
import { createOriginGuard } from '../pipeline/origin.js';
import { RPC, refuse } from '../pipeline/rpcError.js';
import type { EndpointHosts } from '../proxy/hosts.js';
import type { ResolvedDeps } from '../resolve.js';
import { createResourceOf } from './protectedResources.js';

/**
 * Registers the protected routes on an encapsulated instance.
 *
 * @param instance - a child instance of the app (not wrapped in fastify-plugin)
 * @param deps - the resolved dependencies
 * @param parts - the endpoint hosts, the health counter and the per-client gate
 */
export async function mcpRoutes(
  instance: FastifyInstance,
  deps: ResolvedDeps,
  parts: { hosts: EndpointHosts; health: ToolCounter; gate: ClientGate },
): Promise<void> {
  const { observer, publicUrl, registry, logger } = deps;
  instance.addHook(
    'onRequest',
    createOriginGuard({ publicUrl, loopback: deps.loopback, allowedOrigins: deps.allowedOrigins, observer }),
  );
  instance.addHook(
    'onRequest',
    createAuthHook({
      verifier: deps.verifier,
      observer,
      resourceOf: createResourceOf(publicUrl, deps.baseUrlOf),
    }),
  );
  instance.addHook('onRequest', createGateHook(parts.gate, observer));
  registerBodyParser(instance, { bodyLimit: deps.bodyLimit, maxDepth: deps.maxJsonDepth, observer });
  instance.setErrorHandler(createMcpErrorHandler(deps.bodyLimit, logger, observer));

  const serve = async (host: McpHttpHost | undefined, req: FastifyRequest, reply: FastifyReply) => {
    if (host === undefined) {
      observer?.('route', 'reject');
      return refuse(reply, 404, {
        code: RPC.invalidRequest,
        message: `Not found: ${req.routeOptions.url ?? req.url}`,
      });
    }
    observer?.('route', 'pass');
    reply.hijack();
    try {
      await host.handle(req.raw, reply.raw, req.body ?? undefined);
    } catch (err) {
      logger.error({ err: (err as Error).message, url: req.url }, 'MCP endpoint failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: RPC.internalError, message: 'Internal error' },
          id: null,
        }),
      );
    }
  };
  const methods = ['GET', 'POST', 'DELETE'];
  instance.route({
    method: methods,
    url: '/hub',
    handler: (req, reply) => serve(parts.hosts.hub, req, reply),
  });
  instance.route({
    method: methods,
    url: '/mcp',
    handler: (req, reply) => serve(parts.hosts.aggregate, req, reply),
  });
  instance.route<{ Params: { name: string } }>({
    method: methods,
    url: '/servers/:name/mcp',
    handler: async (req, reply) => {
      const name = req.params.name;
      const snapshot = registry.get(name);
      if (snapshot === undefined) return serve(undefined, req, reply);
      if (snapshot.phase !== 'available') {
        observer?.('route', 'reject');
        const retryAfterMs = snapshot.retryAfterMs;
        reply.header('retry-after', String(Math.max(1, Math.ceil((retryAfterMs ?? 5000) / 1000))));
        // the same -32000 `upstream_unavailable` an agent gets mid-call (G9 names the state; one map, one format)
        const { code, message, data } = toJsonRpcError(
          upstreamUnavailableError({
            upstream: name,
            phase: snapshot.phase,
            ...(retryAfterMs !== undefined && { retryAfterMs }),
          }),
        );
        return refuse(reply, 503, {
          code,
          message,
          data: { ...(data as object), since: new Date(snapshot.lastChangeAt).toISOString() },
        });
      }
      return serve(parts.hosts.server(name), req, reply);
    },
  });
  instance.get('/health', async (_req, reply) => {
    observer?.('route', 'pass');
    return reply.header('cache-control', 'no-store').send(await parts.health.report());
  });
}
