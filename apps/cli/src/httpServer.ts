import cors from '@fastify/cors';
import type { McpHttpHost } from '@mcppipe/http';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';

/** Options of {@link buildHttpServer}. */
export interface HttpServerOptions {
  /** The bind address; loopback binds turn on Host/Origin validation (DNS-rebinding protection). */
  host: string;
  /** Extra allowed browser origins (`*` allows any); loopback origins are always allowed. */
  allowedOrigins?: readonly string[];
  /** Extra allowed `Host` header hostnames when bound to loopback. */
  allowedHosts?: readonly string[];
  /** Request body limit in bytes (413 with a JSON-RPC error beyond it). */
  bodyLimit: number;
  /** Named MCP endpoints, e.g. `{ '/mcp': aggregateHost, '/hub': hubHost }`. */
  endpoints: Record<string, McpHttpHost>;
}

/** The Fastify app plus the number of MCP POST requests in flight (for a graceful drain). */
export type McpFastify = FastifyInstance & { inflight(): number };

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a bind address is a loopback address. */
export function isLoopback(host: string): boolean {
  return loopbackNames.has(host) || host.startsWith('127.');
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/** A bounded memo of a pure string function (Host and Origin values repeat on every request of a client). */
function memoized(
  fn: (value: string) => string | undefined,
  max = 256,
): (value: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  return (value) => {
    if (cache.has(value)) return cache.get(value);
    const result = fn(value);
    if (cache.size >= max) cache.clear();
    cache.set(value, result);
    return result;
  };
}

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * Builds the Fastify app that serves MCP endpoints over Streamable HTTP (not listening yet).
 * Timeouts are set so slow clients are cut off; bodies are capped; CORS exposes `Mcp-Session-Id`.
 *
 * @param options - see {@link HttpServerOptions}
 */
export async function buildHttpServer(options: HttpServerOptions): Promise<McpFastify> {
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    requestTimeout: 0, // SSE streams are long-lived; headersTimeout and connectionTimeout bound slow clients
    connectionTimeout: 0,
    keepAliveTimeout: 5_000,
    http: { headersTimeout: 10_000 },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    logger: false,
  });
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const allowedHosts = new Set([...loopbackNames, ...(options.allowedHosts ?? [])]);
  const loopback = isLoopback(options.host);

  if (loopback) {
    // A callback hook (no promise per request) over memoized hostname parsing: the same decisions as before.
    const hostnames = memoized(hostnameOf);
    app.addHook('onRequest', (req, reply, done) => {
      const host = hostnames(req.headers.host ?? '');
      if (!host || !allowedHosts.has(host)) {
        reply.code(403).send(rpcError(-32000, `Forbidden: Host "${req.headers.host ?? ''}" is not allowed`));
        return;
      }
      const origin = req.headers.origin;
      if (origin && !allowedOrigins.has('*') && !allowedOrigins.has(origin)) {
        const o = hostnames(origin);
        if (!o || !loopbackNames.has(o)) {
          reply.code(403).send(rpcError(-32000, `Forbidden: Origin "${origin}" is not allowed`));
          return;
        }
      }
      done();
    });
  }
  await app.register(cors, {
    origin: (origin, cb) => {
      if (!origin || allowedOrigins.has('*') || allowedOrigins.has(origin)) return cb(null, true);
      const o = hostnameOf(origin);
      cb(null, o !== undefined && loopbackNames.has(o));
    },
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'content-type',
      'accept',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'last-event-id',
    ],
    exposedHeaders: ['mcp-session-id', 'mcp-protocol-version'],
  });
  app.setErrorHandler((err: { code?: string; statusCode?: number; message: string }, _req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(rpcError(-32600, `Request body exceeds ${options.bodyLimit} bytes`));
    }
    if (
      err.statusCode === 400 ||
      err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      return reply.code(400).send(rpcError(-32700, `Parse error: ${err.message}`));
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return reply.code(415).send(rpcError(-32000, err.message));
    return reply.code(err.statusCode ?? 500).send(rpcError(-32603, 'Internal error'));
  });
  let inflight = 0;
  for (const [path, host] of Object.entries(options.endpoints)) {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: path,
      handler: async (req, reply) => {
        // hijack() bypasses Fastify's reply, so carry over what its hooks set (CORS headers) onto the raw response
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value);
        }
        reply.hijack();
        if (req.method === 'POST') {
          inflight++;
          reply.raw.once('close', () => inflight--);
        }
        await host.handle(req.raw, reply.raw, req.body ?? undefined);
      },
    });
  }
  app.decorate('inflight', () => inflight);
  return app as unknown as McpFastify;
}
